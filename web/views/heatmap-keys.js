// The heatmaps' keyboard navigation (docs/accessibility.md), the same for a table and a canvas:
// arrow keys move the active cell, Home/End go to the start/end of the row, Ctrl+Home/End to the
// first/last cell, PageUp/PageDown five rows; moving into another row selects that query row
// (onSelectRow). Enter or Space does what a click does: onCellClick when set (mask editing),
// otherwise it selects the row.

const PAGE_ROWS = 5; // PageUp / PageDown move this many rows

/** What a click (or Enter / Space) on cell (i, j) does. */
export function activate(container, i, j) {
  if (container.onCellClick) container.onCellClick(i, j);
  else container.onSelectRow?.(i);
}

/**
 * Handles a key on a grid of `rows` x `n` cells whose active cell is (grid.i, grid.j): moveTo(i, j)
 * moves the active cell (and the focus or the readout with it), then the row is selected if it
 * changed. Keys it does not know are left alone.
 */
export function onGridKey(ev, grid, rows, n, container, moveTo) {
  let { i, j } = grid;
  const ctrl = ev.ctrlKey || ev.metaKey;
  switch (ev.key) {
    case 'ArrowLeft':
      j -= 1;
      break;
    case 'ArrowRight':
      j += 1;
      break;
    case 'ArrowUp':
      i -= 1;
      break;
    case 'ArrowDown':
      i += 1;
      break;
    case 'Home':
      if (ctrl) i = 0;
      j = 0;
      break;
    case 'End':
      if (ctrl) i = rows - 1;
      j = n - 1;
      break;
    case 'PageUp':
      i -= PAGE_ROWS;
      break;
    case 'PageDown':
      i += PAGE_ROWS;
      break;
    case 'Enter':
    case ' ':
      ev.preventDefault();
      activate(container, grid.i, grid.j);
      return;
    default:
      return;
  }
  ev.preventDefault();
  i = Math.min(Math.max(0, i), rows - 1);
  j = Math.min(Math.max(0, j), n - 1);
  const rowChanged = i !== grid.i;
  moveTo(i, j);
  if (rowChanged) container.onSelectRow?.(i);
}
