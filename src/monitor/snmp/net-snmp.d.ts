// The part of net-snmp (no bundled types) that src/monitor/snmp uses.
declare module 'net-snmp' {
  export interface Varbind { oid: string; type: number; value: unknown }
  export interface User { name: string; level: number; authProtocol?: number; authKey?: string; privProtocol?: number; privKey?: string }
  export interface SessionOptions { port?: number; version?: number; transport?: string; timeout?: number; retries?: number; trapPort?: number; context?: string }
  export interface Session {
    trap(oid: string, varbinds: Varbind[], callback: (error: Error | null) => void): void;
    inform(oid: string, varbinds: Varbind[], options: { timeout?: number; retries?: number }, callback: (error: Error | null) => void): void;
    close(): void;
    on(event: 'error' | 'close', listener: (err?: Error) => void): void;
  }
  export interface MibRequest { done(error?: { errorStatus: number }): void; instanceNode: { value: unknown }; oid: string }
  export interface ProviderDefinition {
    name: string; type: number; oid: string; scalarType: number; maxAccess: number; defVal?: unknown; handler?: (req: MibRequest) => void;
  }
  export interface Mib {
    registerProvider(p: ProviderDefinition): void;
    setScalarValue(name: string, value: unknown): void;
  }
  export interface Authorizer { addCommunity(c: string): void; addUser(u: User): void }
  export interface Agent { getMib(): Mib; setMib(mib: Mib): void; getAuthorizer(): Authorizer; close(callback?: () => void): void }
  /** What the agent's request methods receive (`getRequest`, `getNextRequest`, `getBulkRequest`, `setRequest`). */
  export interface RequestMessage { version: number; community?: string; user?: { name: string; level: number } }
  export interface AgentOptions {
    port?: number; address?: string | null; transport?: string; disableAuthorization?: boolean; engineID?: string;
    sockets?: Array<{ transport: string; address?: string; port: number }>;
  }
  const snmp: {
    ObjectType: Record<'OctetString' | 'OID' | 'TimeTicks' | 'Integer' | 'Gauge' | 'Counter', number>;
    SecurityLevel: Record<'noAuthNoPriv' | 'authNoPriv' | 'authPriv', number>;
    AuthProtocols: Record<'md5' | 'sha', number>;
    PrivProtocols: Record<'des' | 'aes' | 'aes256b' | 'aes256r', number>;
    Version1: number; Version2c: number; Version3: number;
    MibProviderType: Record<'Scalar', number>;
    MaxAccess: Record<'read-only', number>;
    createMib(): Mib;
    createAgent(options: AgentOptions, callback: (error: Error | null, data?: unknown) => void, mib?: Mib): Agent;
    createSession(target: string, community: string, options?: SessionOptions): Session;
    createV3Session(target: string, user: User, options?: SessionOptions): Session;
  };
  export default snmp;
}
