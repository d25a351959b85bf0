// Public API of the configuration module: loaders and writers of every configuration file of the
// original product, the password cryptography, and the XML encodings of rule columns.
export { ConfigError, type ConfigErrorLocation } from './errors.js';
export * from './types.js';
export {
  CRYPTO_KEY_LENGTH, decodeHex, decryptPassword, decryptPasswordHex, decryptPasswordHexBytes, encryptPassword, encryptPasswordHex,
  generateCryptoKey, readCryptoKeyFile, readGgpFile, readGgpHex, writeCryptoKeyFile, writeGgpFile,
} from './crypto.js';
export { effectiveRole, formatRoleSet, hasRole, missingRoleMessage, parseRoleSet } from './roles.js';
export { loadServerConfig, serverConfigToXml, writeServerConfig } from './server-config.js';
export { clientConfigToXml, loadClientConfig, loadSubmitClientConfig, writeClientConfig, type ClientLoadOptions } from './client-config.js';
export { authentToXml, loadAuthentFile, writeAuthentFile } from './authent-file.js';
export { loadRuleDirectory, loadRuleFile, normaliseVirtual, ruleToXml, TASK_TYPES, writeRuleFile, type RuleLoadOptions } from './rule-files.js';
export { decodeHostIds, decodeTasks, encodeHostIds, encodeTasks } from './rule-xml-columns.js';
export { loadSnmpConfig, snmpConfigToXml, writeSnmpConfig } from './snmp.js';
export { limitFileToXml, loadLimitFile, writeLimitFile } from './limit-file.js';
export { findLogbackFile, loadLogbackConfig } from './logback.js';
export { dialectOf, virtualToAbsolute } from './common-sections.js';
export { parseJavaBoolean, parseJavaDouble, parseJavaInt, parseJavaLong } from './values.js';
export {
  checkRange, CONFIG_RANGES, configRange, describeRange, OPTION_RANGES, TRANSFER_ID_RANGE, type ConfigRangeKey, type NumberRange, type OptionRangeKey,
} from './ranges.js';
export { defaultSecurity, securityOf, type SecurityConfig } from './security.js';
