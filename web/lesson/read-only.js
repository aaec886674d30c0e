// Whether the page is a read-only link. The lesson's moves stay allowed there (the student's own
// work), but a few of its words change: step 2 points to its own buttons (the page's controls are
// locked), worked example 2 to the button that brings the values back (Undo is locked).

/** True in a read-only link (web/page/page-options.js sets the class): the page's own controls are locked. */
export const readOnly = () => document.documentElement.classList.contains('ap-readonly');
