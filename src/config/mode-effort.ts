import { z } from "zod";
import { lazily } from "../lazy.ts";
import { EFFORTS, type EffortName, MODES, type ModeName } from "./key-values.ts";

// The mode and the effort for what runs on every start (the engine, `lembas run`): their names are
// checked with key-values.ts's isOneOf, and their zod enums, for a schema that holds one, are made
// on first use. config.yaml's own schema (config/schema.ts) is built only for a file the fast
// reader does not take (config/fast-read.ts).

export type Mode = ModeName;
export type Effort = EffortName;

export const modeSchema = lazily(() => z.enum(MODES));
export const effortSchema = lazily(() => z.enum(EFFORTS));
