// Keyboard behaviour of a tab list (WAI-ARIA Authoring Practices, "Tabs" pattern, automatic
// activation): the selected tab is the list's one tab stop (roving tabindex); Left/Right arrows
// (and Up/Down) move to the previous/next tab and activate it (a click, so the page's own handler
// runs), Home/End to the first/last tab. The panels named by aria-controls get role="tabpanel"
// and are labelled by their tab while the tab list is shown.
//
// The page re-renders some tab lists (the lab's) and flips aria-selected from its state, so the
// list is watched: after every change the tab stops are set again, and a keyboard user whose tab
// was replaced keeps the focus on the tab of the same id. A tab stop taken away by an in-place
// update (web/views/dom.js patch() keeps only the attributes the new tab has) is set again.

/** The visible tabs of a tab list, in order. */
function tabsOf(list) {
  return [...list.querySelectorAll('[role="tab"]')].filter((tab) => !tab.hidden && !tab.disabled);
}

/** Sets the roving tab stop and the panels' roles from aria-selected. */
export function syncTabs(list) {
  const tabs = tabsOf(list);
  const selected = tabs.find((tab) => tab.getAttribute('aria-selected') === 'true') ?? tabs[0];
  for (const tab of list.querySelectorAll('[role="tab"]')) {
    const stop = tab === selected ? '0' : '-1';
    if (tab.getAttribute('tabindex') !== stop) tab.setAttribute('tabindex', stop);
    const panel = tab.getAttribute('aria-controls') && document.getElementById(tab.getAttribute('aria-controls'));
    if (!panel) continue;
    if (list.hidden) {
      // Side by side (the heatmaps when there are no tabs): the panels are plain regions again.
      if (panel.dataset.tabpanel) {
        panel.removeAttribute('role');
        panel.removeAttribute('aria-labelledby');
        delete panel.dataset.tabpanel;
      }
      continue;
    }
    // One panel shared by every tab (the lab's): labelled by the selected tab.
    if (panel.getAttribute('role') !== 'tabpanel') {
      panel.setAttribute('role', 'tabpanel');
      panel.dataset.tabpanel = '1';
    }
    if (tab.id && (tab === selected || !panel.hasAttribute('aria-labelledby'))) panel.setAttribute('aria-labelledby', tab.id);
  }
}

/**
 * Gives a tab list the keyboard behaviour of the tabs pattern and keeps its tab stops in step
 * with aria-selected. Safe to call once per list.
 * @param {HTMLElement} list  an element with role="tablist" whose tabs have role="tab"
 */
export function initTabs(list) {
  if (!list || list.dataset.tabsReady) return;
  list.dataset.tabsReady = '1';
  let focusedId = null;
  list.addEventListener('focusin', (ev) => {
    focusedId = ev.target.closest('[role="tab"]')?.id || null;
  });
  list.addEventListener('focusout', (ev) => {
    if (ev.relatedTarget) focusedId = null;
  });
  list.addEventListener('keydown', (ev) => {
    const current = ev.target.closest('[role="tab"]');
    if (!current) return;
    const tabs = tabsOf(list);
    const at = tabs.indexOf(current);
    let next = null;
    if (ev.key === 'ArrowRight' || ev.key === 'ArrowDown') next = tabs[(at + 1) % tabs.length];
    else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowUp') next = tabs[(at - 1 + tabs.length) % tabs.length];
    else if (ev.key === 'Home') next = tabs[0];
    else if (ev.key === 'End') next = tabs[tabs.length - 1];
    if (!next) return;
    ev.preventDefault();
    focusedId = next.id || null;
    next.focus();
    if (next.getAttribute('aria-selected') !== 'true') next.click();
  });
  const observer = new MutationObserver(() => {
    syncTabs(list);
    // The page rebuilt the tabs under a keyboard user: focus the tab with the same id again.
    if (focusedId && (document.activeElement === document.body || !document.activeElement)) {
      document.getElementById(focusedId)?.focus();
    }
  });
  observer.observe(list, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-selected', 'hidden', 'tabindex'] });
  syncTabs(list);
}
