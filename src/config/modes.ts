import { z } from "zod";
import { EFFORTS, MODES } from "./key-values.ts";

// The mode's and the effort's schemas apart from config.yaml's: the engine and `lembas run` check
// these on every start, where config.yaml's own schema is built only for a file the fast reader
// does not take (config/fast-read.ts).

export const Mode = z.enum(MODES);
export type Mode = z.infer<typeof Mode>;

export const Effort = z.enum(EFFORTS);
export type Effort = z.infer<typeof Effort>;
