/** A config problem a person can fix: the file, the key (dotted, or "" for the whole file) and what is wrong. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly key: string,
    readonly problem: string,
  ) {
    super(key ? `${file}: ${key}: ${problem}` : `${file}: ${problem}`);
    this.name = "ConfigError";
  }
}
