// Lesson pages: a Copy button on every code block (the code, not the page's other text).
function addCopyButtons(article) {
  const label = article.dataset.copy || "Copy";
  const done = article.dataset.copied || "Copied";
  for (const pre of article.querySelectorAll("pre.highlight")) {
    const wrapper = document.createElement("div");
    wrapper.className = "code-block";
    pre.replaceWith(wrapper);
    wrapper.append(pre);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy-button";
    button.textContent = label;
    button.addEventListener("click", async () => {
      const text = pre.innerText;
      try {
        await navigator.clipboard.writeText(text);
      } catch {
        // No clipboard permission (or an old browser): select the code so Ctrl+C works.
        const range = document.createRange();
        range.selectNodeContents(pre);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      }
      button.textContent = done;
      setTimeout(() => { button.textContent = label; }, 1500);
    });
    wrapper.append(button);
  }
}

const article = document.getElementById("lesson-text");
if (article) addCopyButtons(article);

// "Back to top" on long lessons: shown once the reader is a screen down, hidden near the top.
function followScroll(link) {
  let pending = false;
  const update = () => {
    pending = false;
    link.hidden = window.scrollY < window.innerHeight;
  };
  window.addEventListener("scroll", () => {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(update);
    }
  }, { passive: true });
  // To the very top (the header too, not only the content), with the focus at the content's
  // start so the keyboard carries on from there.
  link.addEventListener("click", (event) => {
    event.preventDefault();
    window.scrollTo(0, 0);
    document.getElementById("main")?.focus({ preventScroll: true });
  });
  update();
}

const backToTop = document.querySelector(".back-to-top");
if (backToTop) followScroll(backToTop);
