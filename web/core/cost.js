// The cost of a state, for the page's cost line: the state's shapes go to the core (costOf,
// cpp/include/attn/multihead.hpp layer_cost / head_cost), which counts the bytes and the
// multiply-adds; this module only reads the shapes. Standalone (it takes the loaded Core) so the
// core wrapper stays as it is.
import { AttentionError } from './core.js';
import { BLOCK_ROWS, headShape } from '../large/large.js';

/**
 * @param {import('./core.js').Core} core
 * @param {object} s  a valid state
 * @returns {{projectionMacs: number, attentionMacs: number, outputMacs: number}} in mode "x"
 *   (the projections X W, Q Kᵀ and A V of every head, concat W_O); else
 *   {cells, matrixBytes, scoreMacs, outputMacs, streamBytes} of the selected head (streamBytes:
 *   the worker's block of BLOCK_ROWS rows)
 * @throws {AttentionError}
 */
export function stateCost(core, s) {
  const shape =
    s.mode === 'x'
      ? {
          mode: 'x',
          n: s.x.X.length,
          dModel: s.x.X[0].length,
          dK: s.heads.map((hd) => hd.WQ[0].length),
          dV: s.heads.map((hd) => hd.WV[0].length),
          woRows: s.x.WO ? s.x.WO.length : 0,
          woCols: s.x.WO ? s.x.WO[0].length : 0,
        }
      : { mode: s.mode, ...headShape(s), blockRows: BLOCK_ROWS };
  const out = core.mod.costOf(shape);
  if (out.error) throw new AttentionError(out.error.code, out.error.field, out.error.message);
  return out;
}
