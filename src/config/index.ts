// Public API of the configuration module: loaders and writers of every configuration file of the
// original product, the password cryptography, and the XML encodings of rule columns.
export { ConfigError, type ConfigErrorLocation } from './errors.js';
export * from './types.js';
export {
  CRYPTO_KEY_LENGTH, decodeHex, decryptPassword, decryptPasswordHex, decryptPasswordHexBytes, encryptPassword, encryptPasswordHex,
  generateCryptoKey, readCryptoKeyFile, readGgpFile, readGgpHex, writeCryptoKeyFile, writeGgpFile,
} from './crypto.js';
export { effectiveRole, formatRoleSet, hasRole, parseRoleSet } from './roles.js';
export { loadServerConfig, serverConfigToXml, writeServerConfig } from './server-config.js';
export { virtualToAbsolute, dialectOf } from './common-sections.js';
export { parseJavaBoolean, parseJavaDouble, parseJavaInt, parseJavaLong } from './values.js';
