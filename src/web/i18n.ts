/**
 * English and French texts of both web areas (web-ui.md: en/fr, the `i18next` cookie keeps the
 * choice). Server-side: every page is rendered in the chosen language, no client library.
 */
export type Lang = 'en' | 'fr';
export const LANGS: readonly Lang[] = ['en', 'fr'];

const EN = {
  monitoring: 'Monitoring', administration: 'Administration', date: 'Date', bandwidth: 'Bandwidth', localConnections: 'Active local channels',
  networkConnections: 'Network connections', active: 'Active', error: 'In error', done: 'Finished', all: 'All transfers', status: 'Status',
  statusXml: 'Status in XML', statusXmlDetail: 'Detailed status in XML', statusJson: 'Status in JSON', statusJsonDetail: 'Detailed status in JSON',
  spooled: 'All spooled daemons', spooledDetail: 'All detailed spooled daemons', specific: 'Specific monitoring', rows: 'Number of rows (0 = all)',
  show: 'Show', language: 'Language', serverLanguage: 'Server language (pages of viewers who chose none)', seeAllOwner: 'Owner', noRow: 'No transfer', running: 'Running', notRunning: 'Not active', live: 'Live',
  chartThroughput: 'Throughput, last hour', chartPeakIn: 'peak in', chartPeakOut: 'peak out', chartIn: 'In (received)', chartOut: 'Out (sent)',
  chartPerMinute: 'Transfers per minute by status, last hour', chart_done: 'Done', chart_error: 'Error or interrupted', chart_running: 'Running', chart_other: 'Other (to submit…)',
  chartErrorsPartner: 'Errors by partner, last 24 h', chartErrorsRule: 'Errors by rule, last 24 h', chartNoErrors: 'No error', chartHourAgo: '1 h ago', chartNow: 'now',
  chartsDown: 'The pictures cannot be drawn: the database cannot be read',
  cat_running: 'Running', cat_interrupted: 'Interrupted', cat_tosubmit: 'To submit', cat_initok: 'Initialised', cat_preok: 'Pre-processing done',
  cat_transferok: 'Transfer done', cat_postok: 'Post-processing done', cat_inerror: 'In error', cat_errortask: 'Error tasks', cat_done: 'Done', cat_all: 'All',
  problemError: 'Some Transfers are in ERROR', problemInterrupted: 'Some Transfers are INTERRUPTED', problemErrorTask: 'Some Transfers are in ERRORTASK',
  noProblem: 'No problem is found in Transfers', databaseDown: 'The database cannot be read',
  watchers: 'File watchers', name: 'Name', host: 'Host', lastUpdate: 'Last update', counters: 'AllOk / AllError / TodayOk / TodayError', interval: 'Scan interval',
  stopFile: 'Stop file', statusFile: 'Status file', subDirs: 'Sub-directories', directories: 'Directories', files: 'Files', detail: 'Detail',
  noDetail: 'No detail', onlyKo: 'Only KO', onlyOk: 'Only OK', noWatcher: 'No file watcher has reported to this server',
  login: 'Log in', user: 'Host id', password: 'Password', emptyLogin: 'Empty login: give a host id and a password', badLogin: 'Bad login: unknown host id or wrong password',
  lockedOut: 'Too many failed logins: try again later', logout: 'Log out', start: 'Start', transfers: 'Transfers', listing: 'Listing', cancelRestart: 'Cancel / restart',
  create: 'Create transfer', export: 'Export', hosts: 'Hosts', rules: 'Rules', system: 'System', notAllowed: 'You are not allowed to use this page',
  filter: 'Filter', reload: 'Reload', search: 'Search', followId: 'Follow id', startId: 'From id', stopId: 'To id', startDate: 'From date', stopDate: 'To date',
  rule: 'Rule', partner: 'Partner', pending: 'Pending', inTransfer: 'In transfer', limitRow: 'Rows per page', next: 'Next page', previous: 'Previous page',
  stop: 'Stop', cancel: 'Cancel', cancelClean: 'Cancel and clean', restart: 'Restart', stopAll: 'Stop all matching', stopCleanAll: 'Stop and clean all matching',
  restartAll: 'Restart all matching', actions: 'Actions', file: 'File', transferInfo: 'Transfer information', startAt: 'Start at (yyyy/MM/dd HH:mm)', blockSize: 'Block size',
  submit: 'Submit', purge: 'Purge the exported finished transfers', exported: 'exported', purged: 'purged', nothingToExport: 'Nothing to export', download: 'Download',
  address: 'Address', port: 'Port', ssl: 'TLS', key: 'Password', admin: 'Administrator', isClient: 'Client only', isActive: 'Active', proxified: 'Proxified',
  update: 'Update', updateTransfer: 'Update transfer', delete: 'Delete', testConn: 'Test connection', closeConn: 'Close connections', connectionsClosed: 'connection(s) closed', hostIds: 'Allowed hosts', mode: 'Mode',
  recvPath: 'Receive directory', sendPath: 'Send directory', archPath: 'Archive directory', workPath: 'Work directory', tasks: 'Tasks (XML)',
  logLevel: 'Log level', apply: 'Apply', sessionLimits: 'Session limits (bytes/s, read / write)', globalLimits: 'Global limits (bytes/s, read / write)',
  delayLimit: 'Bandwidth check delay (ms)', delayCommand: 'Scheduler period (ms)', delayRetry: 'Retry delay (ms)', hostConfig: 'Host configuration',
  business: 'Business', roles: 'Roles', aliases: 'Aliases', others: 'Others', exportConfig: 'Export the configuration', block: 'Block new requests',
  blocked: 'New requests are refused', unblocked: 'New requests are accepted', shutdown: 'Shut down', restartServer: 'Restart the server',
  shutdownStarted: 'The server is shutting down', badRequest: 'Refused: a parameter holds forbidden characters', forged: 'Refused: the form is expired or forged; reload the page',
  refresh: 'Auto-refresh (s, 0 = off)', result: 'Result', welcome: 'Welcome', loggedAs: 'Logged in as', roleList: 'Roles', summary: 'Summary',
  required: 'is required', notFound: 'not found', progress: 'Progress', rate: 'Rate', step: 'Step', done_: 'done', failed: 'failed', count: 'Count',
  skip: 'Skip to content', menu: 'Menu', add: 'Create', firstPage: 'First page',
} as const;

export type TextKey = keyof typeof EN;

const FR: Record<TextKey, string> = {
  monitoring: 'Supervision', administration: 'Administration', date: 'Date', bandwidth: 'Bande passante', localConnections: 'Canaux locaux actifs',
  networkConnections: 'Connexions réseau', active: 'Actifs', error: 'En erreur', done: 'Terminés', all: 'Tous les transferts', status: 'État',
  statusXml: 'État en XML', statusXmlDetail: 'État détaillé en XML', statusJson: 'État en JSON', statusJsonDetail: 'État détaillé en JSON',
  spooled: 'Tous les surveillants de répertoire', spooledDetail: 'Tous les surveillants, détaillés', specific: 'Supervision spécifique', rows: 'Nombre de lignes (0 = toutes)',
  show: 'Afficher', language: 'Langue', serverLanguage: 'Langue du serveur (pages des visiteurs sans choix)', seeAllOwner: 'Propriétaire', noRow: 'Aucun transfert', running: 'En cours', notRunning: 'Inactif', live: 'En direct',
  chartThroughput: 'Débit, dernière heure', chartPeakIn: 'pic entrant', chartPeakOut: 'pic sortant', chartIn: 'Entrant (reçu)', chartOut: 'Sortant (envoyé)',
  chartPerMinute: 'Transferts par minute et par état, dernière heure', chart_done: 'Terminés', chart_error: 'En erreur ou interrompus', chart_running: 'En cours', chart_other: 'Autres (à soumettre…)',
  chartErrorsPartner: 'Erreurs par partenaire, dernières 24 h', chartErrorsRule: 'Erreurs par règle, dernières 24 h', chartNoErrors: 'Aucune erreur', chartHourAgo: 'il y a 1 h', chartNow: 'maintenant',
  chartsDown: 'Les graphiques ne peuvent pas être tracés : la base de données ne peut pas être lue',
  cat_running: 'En cours', cat_interrupted: 'Interrompus', cat_tosubmit: 'À soumettre', cat_initok: 'Initialisés', cat_preok: 'Pré-traitement fait',
  cat_transferok: 'Transfert fait', cat_postok: 'Post-traitement fait', cat_inerror: 'En erreur', cat_errortask: 'Tâches d\'erreur', cat_done: 'Terminés', cat_all: 'Tous',
  problemError: 'Des transferts sont en ERREUR', problemInterrupted: 'Des transferts sont INTERROMPUS', problemErrorTask: 'Des transferts sont en ERRORTASK',
  noProblem: 'Aucun problème dans les transferts', databaseDown: 'La base de données ne peut être lue',
  watchers: 'Surveillants de répertoire', name: 'Nom', host: 'Hôte', lastUpdate: 'Dernière mise à jour', counters: 'TousOk / TousErreur / JourOk / JourErreur', interval: 'Intervalle',
  stopFile: 'Fichier d\'arrêt', statusFile: 'Fichier d\'état', subDirs: 'Sous-répertoires', directories: 'Répertoires', files: 'Fichiers', detail: 'Détail',
  noDetail: 'Sans détail', onlyKo: 'Seulement KO', onlyOk: 'Seulement OK', noWatcher: 'Aucun surveillant ne s\'est signalé à ce serveur',
  login: 'Connexion', user: 'Identifiant d\'hôte', password: 'Mot de passe', emptyLogin: 'Identifiant vide : donnez un identifiant et un mot de passe', badLogin: 'Identifiant inconnu ou mot de passe erroné',
  lockedOut: 'Trop d\'échecs de connexion : réessayez plus tard', logout: 'Déconnexion', start: 'Accueil', transfers: 'Transferts', listing: 'Liste', cancelRestart: 'Annuler / relancer',
  create: 'Créer un transfert', export: 'Export', hosts: 'Hôtes', rules: 'Règles', system: 'Système', notAllowed: 'Vous n\'avez pas le droit d\'utiliser cette page',
  filter: 'Filtrer', reload: 'Recharger', search: 'Rechercher', followId: 'Id de suivi', startId: 'Depuis l\'id', stopId: 'Jusqu\'à l\'id', startDate: 'Depuis la date', stopDate: 'Jusqu\'à la date',
  rule: 'Règle', partner: 'Partenaire', pending: 'En attente', inTransfer: 'En transfert', limitRow: 'Lignes par page', next: 'Page suivante', previous: 'Page précédente',
  stop: 'Arrêter', cancel: 'Annuler', cancelClean: 'Annuler et nettoyer', restart: 'Relancer', stopAll: 'Arrêter toute la sélection', stopCleanAll: 'Arrêter et nettoyer la sélection',
  restartAll: 'Relancer toute la sélection', actions: 'Actions', file: 'Fichier', transferInfo: 'Information de transfert', startAt: 'Début (aaaa/MM/jj HH:mm)', blockSize: 'Taille de bloc',
  submit: 'Soumettre', purge: 'Purger les transferts terminés exportés', exported: 'exportés', purged: 'purgés', nothingToExport: 'Rien à exporter', download: 'Télécharger',
  address: 'Adresse', port: 'Port', ssl: 'TLS', key: 'Mot de passe', admin: 'Administrateur', isClient: 'Client seul', isActive: 'Actif', proxified: 'Via proxy',
  update: 'Modifier', updateTransfer: 'Modifier le transfert', delete: 'Supprimer', testConn: 'Tester la connexion', closeConn: 'Fermer les connexions', connectionsClosed: 'connexion(s) fermée(s)', hostIds: 'Hôtes autorisés', mode: 'Mode',
  recvPath: 'Répertoire de réception', sendPath: 'Répertoire d\'envoi', archPath: 'Répertoire d\'archive', workPath: 'Répertoire de travail', tasks: 'Tâches (XML)',
  logLevel: 'Niveau de journal', apply: 'Appliquer', sessionLimits: 'Limites par session (octets/s, lecture / écriture)', globalLimits: 'Limites globales (octets/s, lecture / écriture)',
  delayLimit: 'Délai de contrôle de bande passante (ms)', delayCommand: 'Période du planificateur (ms)', delayRetry: 'Délai avant nouvel essai (ms)', hostConfig: 'Configuration de l\'hôte',
  business: 'Business', roles: 'Rôles', aliases: 'Alias', others: 'Autres', exportConfig: 'Exporter la configuration', block: 'Bloquer les nouvelles requêtes',
  blocked: 'Les nouvelles requêtes sont refusées', unblocked: 'Les nouvelles requêtes sont acceptées', shutdown: 'Arrêter', restartServer: 'Redémarrer le serveur',
  shutdownStarted: 'Le serveur s\'arrête', badRequest: 'Refusé : un paramètre contient des caractères interdits', forged: 'Refusé : formulaire expiré ou falsifié ; rechargez la page',
  refresh: 'Rafraîchissement (s, 0 = aucun)', result: 'Résultat', welcome: 'Bienvenue', loggedAs: 'Connecté en tant que', roleList: 'Rôles', summary: 'Résumé',
  required: 'est obligatoire', notFound: 'introuvable', progress: 'Progression', rate: 'Débit', step: 'Étape', done_: 'fait', failed: 'échec', count: 'Nombre',
  skip: 'Aller au contenu', menu: 'Menu', add: 'Créer', firstPage: 'Première page',
};

const TEXTS: Record<Lang, Record<TextKey, string>> = { en: EN, fr: FR };

export type Translate = (key: TextKey) => string;

export function translator(lang: Lang): Translate {
  const table = TEXTS[lang];
  return (key) => table[key];
}

/** `setLng` wins, then the `i18next` cookie; anything else is English. */
/** The language asked (`setLng`), else the `i18next` cookie's, else the server's (System › `changesys`, default English). */
export function pickLang(setLng: string | undefined, cookie: string | undefined, serverLang: Lang = 'en'): Lang {
  const wanted = (setLng ?? cookie ?? serverLang).slice(0, 2).toLowerCase();
  return wanted === 'fr' ? 'fr' : 'en';
}
