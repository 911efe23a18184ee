/** The request of the selection pool to its threads (structured-clone plain data). */
import type { ExternalObjectiveScores } from './execute.ts';
import type { LibrarySource } from './library.ts';
import type { NormalizedSelection } from './spec.ts';

export interface ExecuteMessage {
  /** Stable key of the library within this pool; `source` is sent the first time a thread sees it. */
  key: string;
  source?: LibrarySource;
  selection: NormalizedSelection;
  /** Scores of 3D objectives computed by the caller (executeSelection's `external`). */
  external?: ExternalObjectiveScores;
}
