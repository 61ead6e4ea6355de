// The header's light/dark toggle. The choice goes into a cookie, and the server writes it on
// <html data-theme> from the next page on, so no page flashes the other theme while loading
// (localStorage would be read only after the first paint). With no choice made, the system's
// preference rules (site.css).
const COOKIE = "theme";
const YEAR_S = 365 * 24 * 3600;
const systemDark = window.matchMedia("(prefers-color-scheme: dark)");

function chosen() {
  const value = document.documentElement.dataset.theme;
  return value === "light" || value === "dark" ? value : null;
}

export function effectiveTheme() {
  return chosen() || (systemDark.matches ? "dark" : "light");
}

function remember(theme) {
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  document.cookie = `${COOKIE}=${theme}; Max-Age=${YEAR_S}; Path=/; SameSite=Lax${secure}`;
}

function setUp(button) {
  const show = () => button.setAttribute("aria-pressed", String(effectiveTheme() === "dark"));
  button.addEventListener("click", () => {
    const next = effectiveTheme() === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    remember(next);
    show();
  });
  // Following the system (no choice yet): the button tracks it when it changes.
  systemDark.addEventListener("change", () => { if (!chosen()) show(); });
  show();
  button.hidden = false; // without this script the button could do nothing, so it stays hidden
}

const toggle = document.getElementById("theme-toggle");
if (toggle) setUp(toggle);
