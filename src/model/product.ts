/** Identity of this product as shown to people (CLI banners, logs, REST). */
export const PRODUCT_NAME = 'svc-r66';

/** Our own release version (package.json's version). */
export const PRODUCT_VERSION = '0.1.0';

/**
 * The R66 protocol version we announce to partners. Java 3.6.2 hosts check it, so it stays the
 * original's string (spec r66-protocol.md §5.4).
 */
export const ANNOUNCED_R66_VERSION = '3.6.2';
