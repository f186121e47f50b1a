/** One of the doctor's findings: fine, or a problem with what to do about it. */
export type Finding = { ok: true; text: string } | { ok: false; text: string; todo: string };
