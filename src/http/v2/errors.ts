/**
 * The v2 error model (rest-v2.md §8): a 400 answer carries `{"errors":[{message, errorCode}]}` with
 * every problem found; every other failure is status-only. One class to throw from handlers.
 */

/** errorCode values of rest-v2.md §8. */
export const V2Code = {
  MissingBody: 1, MalformedJSON: 2, DuplicateKey: 3, IllegalParameterValue: 4, UnknownField: 5, MissingFieldValue: 6,
  IllegalFieldValue: 7, AlreadyExisting: 8, FileNotFound: 9, UnknownRule: 10, UnknownHost: 11, RuleNotAllowed: 12,
  UnauthorizedField: 13,
} as const;
export type V2CodeValue = (typeof V2Code)[keyof typeof V2Code];

const EN: Record<V2CodeValue, (a: string[]) => string> = {
  1: () => 'The request is missing a body.',
  2: (a) => `The request body is not valid JSON (line ${a[0]}, column ${a[1]}): ${a[2]}.`,
  3: (a) => `The JSON field ${a[0]} appears more than once.`,
  4: (a) => `Invalid value ${a[0]} for query parameter '${a[1]}'.`,
  5: (a) => `Unknown field ${a[0]}.`,
  6: (a) => `Missing value for the field ${a[0]}.`,
  7: (a) => `Invalid value ${a[0]} for the field ${a[1]}.`,
  8: (a) => `An entry with the id ${a[0]} already exists.`,
  9: (a) => `The file ${a[0]} does not exist.`,
  10: (a) => `The rule ${a[0]} does not exist.`,
  11: (a) => `The host ${a[0]} does not exist.`,
  12: (a) => `The host ${a[0]} is not allowed to use the rule ${a[1]}.`,
  13: (a) => `The field ${a[0]} cannot be modified.`,
};

const FR: Record<V2CodeValue, (a: string[]) => string> = {
  1: () => 'La requête n\'a pas de corps.',
  2: (a) => `Le corps de la requête n'est pas un JSON valide (ligne ${a[0]}, colonne ${a[1]}) : ${a[2]}.`,
  3: (a) => `Le champ JSON ${a[0]} apparaît plusieurs fois.`,
  4: (a) => `Valeur ${a[0]} invalide pour le paramètre '${a[1]}'.`,
  5: (a) => `Champ inconnu ${a[0]}.`,
  6: (a) => `Valeur manquante pour le champ ${a[0]}.`,
  7: (a) => `Valeur ${a[0]} invalide pour le champ ${a[1]}.`,
  8: (a) => `Une entrée avec l'identifiant ${a[0]} existe déjà.`,
  9: (a) => `Le fichier ${a[0]} n'existe pas.`,
  10: (a) => `La règle ${a[0]} n'existe pas.`,
  11: (a) => `L'hôte ${a[0]} n'existe pas.`,
  12: (a) => `L'hôte ${a[0]} n'est pas autorisé à utiliser la règle ${a[1]}.`,
  13: (a) => `Le champ ${a[0]} ne peut pas être modifié.`,
};

export interface V2ErrorItem {
  code: V2CodeValue;
  args: string[];
}

/** One or more input errors: answered 400 with the error list. */
export class V2BadRequest extends Error {
  constructor(readonly items: V2ErrorItem[]) {
    super(`bad request: ${items.map((i) => i.code).join(',')}`);
    this.name = 'V2BadRequest';
  }

  static of(code: V2CodeValue, ...args: string[]): V2BadRequest {
    return new V2BadRequest([{ code, args }]);
  }
}

/** A status-only answer (404, 415, ...) with optional headers. */
export class V2Status extends Error {
  /** `explanation`: plain text sent as the body (a refusal the user can act on), else none. */
  constructor(readonly status: number, readonly headers: Record<string, string | string[]> = {}, readonly explanation?: string) {
    super(`status ${status}`);
    this.name = 'V2Status';
  }
}

/**
 * A router-level refusal (rest-v2.md §2.5): unknown path (404) or method not served by a known
 * path (405). Unlike the handlers' status-only answers, the original's router answers a short
 * plain-text diagnostic naming the URI, and closes the connection.
 */
export class V2RouteError extends V2Status {
  constructor(status: 404 | 405, readonly uri: string) {
    super(status);
    this.name = 'V2RouteError';
  }

  get text(): string {
    return `Problem accessing: ${this.uri}. Reason: ${this.status === 404 ? 'Not Found' : 'Method Not Allowed'}`;
  }
}

/** Collects errors while validating, then throws them all at once. */
export class ErrorList {
  readonly items: V2ErrorItem[] = [];
  add(code: V2CodeValue, ...args: string[]): void {
    this.items.push({ code, args });
  }
  throwIfAny(): void {
    if (this.items.length > 0) throw new V2BadRequest(this.items);
  }
}

/**
 * French when the first language tag with the highest quality is French, English otherwise (a
 * missing header gives English: the original's 500 there is defect V8).
 */
export function pickLanguage(acceptLanguage: string | undefined): 'en' | 'fr' {
  if (!acceptLanguage) return 'en';
  let best = { tag: '', q: -1 };
  for (const part of acceptLanguage.split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const qParam = params.find((p) => p.trim().startsWith('q='));
    const q = qParam ? Number(qParam.trim().slice(2)) : 1;
    if (!Number.isNaN(q) && q > best.q) best = { tag: tag.trim().toLowerCase(), q };
  }
  return best.tag === 'fr' || best.tag.startsWith('fr-') ? 'fr' : 'en';
}

/** The 400 body. */
export function errorBody(items: readonly V2ErrorItem[], lang: 'en' | 'fr'): { errors: Array<{ message: string; errorCode: number }> } {
  const texts = lang === 'fr' ? FR : EN;
  return { errors: items.map((i) => ({ message: texts[i.code](i.args), errorCode: i.code })) };
}
