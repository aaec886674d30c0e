// The live part of each lesson step (web/lesson/panel.js): what the student acts on, one module a
// step. Step 1 the key plane (web/lesson/plane.js) and the table of scores and weights
// (live-step1.js), step 2 the temperature buttons and the row's entropy and sums (live-step2.js),
// step 3 the causal mask (live-step3.js), step 4 the value editor and the row's output
// (live-step4.js), step 5 the link with its Copy button (live-step5.js). Steps 1 and 4 share the
// box that swaps the values (value-swap.js). Step 1 owns the plane (kept across rebuilds of the
// panel while its step and key count stay), step 4 the value chosen, step 5 the opened frame.
import { createStep1 } from './live-step1.js';
import { step2Live } from './live-step2.js';
import { step3Live } from './live-step3.js';
import { createStep4 } from './live-step4.js';
import { createStep5 } from './live-step5.js';

/**
 * @param {object} ctx the panel's context (initLesson): getState, getResults, update, shareUrl,
 *   container
 * @returns {{live: (n, s, r, ref) => Node[], step1Table: (s, r, ref) => Node,
 *   plane: () => object|null, dropPlane: () => void}}
 */
export function createLive(ctx) {
  const step1 = createStep1(ctx);
  const step4 = createStep4(ctx);
  const step5 = createStep5(ctx);

  function live(n, s, r, ref) {
    if (n === 1) return step1.live(s, r, ref);
    if (n === 2) return step2Live(ctx, s, r, ref);
    if (n === 3) return step3Live(ctx, s, r);
    if (n === 4) return step4.live(s, r, ref);
    return step5.live(s, r);
  }

  return {
    live,
    step1Table: step1.table,
    announceOpened: step5.announceOpened,
    frameSlot: step5.frameSlot,
    syncFrame: step5.syncFrame,
    plane: step1.plane,
    dropPlane: step1.dropPlane,
  };
}
