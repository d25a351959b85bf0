/**
 * The one plug-in mechanism (docs/plugins/README.md): a plug-in is an ES module exporting
 * `execJava` (EXECJAVA class names -> factories) and/or `taskTypes` (new task type names).
 * Modules are named in the `extendedtaskfactories` list of server.xml/client.xml (the original's
 * extension factory list), by absolute path, `file:` URL or package name, and loaded at start-up.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TaskLogger } from './context.js';
import type { TaskPluginModule } from './plugin-types.js';
import type { TaskRegistry } from './registry.js';

/** The original's S3 factory: its task types are part of this product (recognised in the registry). */
export const S3_FACTORY_CLASS = 'org.waarp.openr66.s3.taskfactory.S3TaskFactory';

const PREFIXES = ['org.waarp.openr66.', 'org.svc.openr66.'];

/** Class names of both brands resolve to one entry: `org.waarp.openr66.X` == `org.svc.openr66.X`. */
export function canonicalClassName(name: string): string {
  for (const p of PREFIXES) if (name.startsWith(p)) return `org.svc.openr66.${name.slice(p.length)}`;
  return name;
}

/** A Java class name as the original's sanity check accepts it. */
export function isValidClassName(name: string): boolean {
  return /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(name);
}

/** True when a factory entry names a module rather than a Java class. */
export function isModuleSpecifier(entry: string): boolean {
  return entry.startsWith('file:') || entry.includes('/') || /\.(m?js|cjs)$/.test(entry);
}

/** Registers what a loaded module brings. Returns the names registered. */
export function registerPluginModule(registry: TaskRegistry, mod: TaskPluginModule, origin: string): string[] {
  const names: string[] = [];
  if (!mod.execJava && !mod.taskTypes) throw new Error(`plug-in module ${origin} exports neither execJava nor taskTypes`);
  for (const [className, factory] of Object.entries(mod.execJava ?? {})) {
    if (typeof factory !== 'function') throw new Error(`plug-in module ${origin}: execJava["${className}"] is not a function`);
    registry.registerExecJava(canonicalClassName(className), factory);
    names.push(className);
  }
  for (const [type, impl] of Object.entries(mod.taskTypes ?? {})) {
    if (!impl || typeof impl.run !== 'function') throw new Error(`plug-in module ${origin}: taskTypes["${type}"] has no run()`);
    registry.register(type, impl);
    names.push(type.toUpperCase());
  }
  return names;
}

/** Imports one plug-in module (path relative to `baseDir`, `file:` URL or package name) and registers it. */
export async function loadTaskPlugin(registry: TaskRegistry, specifier: string, baseDir: string): Promise<string[]> {
  let target = specifier;
  if (!specifier.startsWith('file:') && (specifier.startsWith('.') || isAbsolute(specifier))) {
    target = pathToFileURL(resolve(baseDir, specifier)).href;
  }
  const mod = (await import(target)) as TaskPluginModule;
  return registerPluginModule(registry, mod, specifier);
}

/**
 * Applies the `extendedtaskfactories` comma list. Module entries are loaded; the S3 factory class
 * is accepted (its types are known); any other Java class name is ignored with a warning, and a
 * module that cannot be loaded is logged and skipped: like the original, never fatal.
 */
export async function loadExtendTaskFactories(registry: TaskRegistry, list: string, baseDir: string, logger: TaskLogger): Promise<void> {
  for (const entry of list.split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    if (entry === S3_FACTORY_CLASS || canonicalClassName(entry) === canonicalClassName(S3_FACTORY_CLASS)) continue;
    if (!isModuleSpecifier(entry)) {
      logger.warn(`extendedtaskfactories: "${entry}" is a Java class, not a svc-r66 plug-in module; ignored`);
      continue;
    }
    try {
      const names = await loadTaskPlugin(registry, entry, baseDir);
      logger.info(`extendedtaskfactories: loaded ${entry} (${names.join(', ')})`);
    } catch (err) {
      logger.error(`extendedtaskfactories: cannot load plug-in ${entry}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
