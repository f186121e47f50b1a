import { errorMessage } from "../errors.ts";
import type { ModelSource, ResolvedModel } from "../model/resolved.ts";

/**
 * A turn's model as its login stands now (ModelSource.current), looked at before each step's
 * request, a session's or a helper's: `gone` says why it can no longer be called (its login was
 * logged out since the last step), and the turn ends with it, never a request with the removed token.
 */
export async function modelNow(models: Pick<ModelSource, "current"> | undefined, model: ResolvedModel): Promise<ResolvedModel | { gone: string }> {
  if (!models?.current) return model;
  try {
    return await models.current(model);
  } catch (error) {
    return { gone: errorMessage(error) };
  }
}
