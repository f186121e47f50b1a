import type { ServiceSpec } from "./units.ts";

/** What the manager says of the service. */
export type ManagerState = {
  /** The unit file or plist. */
  unitFile: string;
  /** Whether the unit file is there. */
  installed: boolean;
  /** The manager's word: systemd's `active`, `inactive`, `failed`…; launchd's `running`, `not loaded`… */
  state: string;
  running: boolean;
  /** Why the manager could not be asked, when it could not. */
  problem?: string;
};

/** Installs, removes and asks after the lembas service. install and uninstall are idempotent. */
export interface ServiceManager {
  readonly kind: "systemd" | "launchd";
  /** Where the unit file or plist goes. */
  readonly unitFile: string;
  /** Writes the unit for `spec`, enables and (re)starts it; returns what to tell the person, a line each. */
  install(spec: ServiceSpec): Promise<string[]>;
  /** Stops and disables the service and removes its unit; returns what to tell the person. */
  uninstall(): Promise<string[]>;
  state(): Promise<ManagerState>;
}
