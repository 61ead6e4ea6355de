// A page that answers a form (a checked quiz) puts the focus on its answer, so a keyboard or
// screen-reader user starts there rather than on <body> at the top (issue 34, item 2).
const target = document.querySelector("[data-focus-on-arrival]");
if (target) {
  if (!target.hasAttribute("tabindex")) target.tabIndex = -1;
  target.focus({ preventScroll: false });
}
