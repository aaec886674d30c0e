// The metrics table as the tests read it: every test list of metrics comes from here, and this
// from the core's one table (cpp/include/attn/metrics.def, through `attn schema` ->
// web/generated/schema.js), so a new metric reaches every test by itself.
import { SCHEMA } from '../../web/generated/schema.js';

/** Every row metric in display order ({key, csv, unit, integer, head, emptyUndefined}). */
export const ROW_METRICS = SCHEMA.metrics;
/** The metrics a head summarises by their mean (m.head.key, m.head.csv). */
export const HEAD_METRICS = ROW_METRICS.filter((m) => m.head);
/** TransformerLens's head-detector scores ({key, csv}) and the pattern classes (head_scores.def). */
export const HEAD_SCORES = SCHEMA.heads.headScores;
export const PATTERN_KINDS = SCHEMA.heads.patternKinds;
