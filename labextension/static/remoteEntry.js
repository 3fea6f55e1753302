// bmlab-links: a link to "notebook.ipynb#cell-id=ID" lands on that cell every time.
//
// JupyterLab 4 applies the fragment (NotebookPanel.setFragment) as soon as the notebook's
// model is loaded, before its cells are rendered: it scrolls to the cell while the cells above
// it are still empty, and when they render (Markdown, MathJax, stored figures) they push the
// cell down again, so the notebook stays near its top (every time in windowing mode "none",
// about one time in ten in the default mode "contentVisibility"). This plugin keeps the cell
// at the top of the panel each time the notebook's height changes, until the reader scrolls,
// clicks or types in the panel, the panel closes, or HOLD_MS have passed.
//
// Hand-written, no build step: a module-federation container of the shape JupyterLab loads
// for a prebuilt extension (window._JUPYTERLAB[name] with init and get), with one plugin that
// needs no token. Installed into <prefix>/share/jupyter/labextensions/bmlab-links/.
(function () {
  "use strict";
  const HOLD_MS = 60000;
  const READER = ["wheel", "touchstart", "pointerdown", "keydown"];

  function holdAtTop(panel, id) {
    const notebook = panel.content;
    const scroller = notebook.outerNode;
    let done = false;
    const observer = new ResizeObserver(() => align());
    const stop = () => {
      if (done) return;
      done = true;
      observer.disconnect();
      clearTimeout(limit);
      READER.forEach((type) => panel.node.removeEventListener(type, stop, true));
    };
    const align = () => {
      if (done) return;
      if (panel.isDisposed) return stop();
      const cell = notebook.widgets.find((c) => c.model.id === id);
      if (!cell || !panel.isVisible) return;
      const offset = cell.node.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
      if (Math.abs(offset) >= 1) scroller.scrollTop += offset;
    };
    const limit = setTimeout(stop, HOLD_MS);
    READER.forEach((type) => panel.node.addEventListener(type, stop, true));
    observer.observe(notebook.viewportNode); // the cells: its height is the notebook's
    observer.observe(scroller); // the panel: shown, resized
    align();
  }

  function patch(widget, patched) {
    // A notebook panel: a document widget whose content is a windowed notebook.
    if (!widget || !widget.context || !widget.content || !widget.content.outerNode) return;
    if (!widget.content.viewportNode) return;
    let proto = Object.getPrototypeOf(widget); // the class that defines setFragment
    while (proto && !Object.prototype.hasOwnProperty.call(proto, "setFragment")) {
      proto = Object.getPrototypeOf(proto);
    }
    if (!proto || patched.has(proto)) return;
    patched.add(proto);
    const original = proto.setFragment;
    proto.setFragment = function (fragment) {
      original.call(this, fragment); // JupyterLab's own scroll, and it selects the cell
      const match = /^#cell-id=(.+)$/.exec(fragment || "");
      if (!match) return;
      let id = match[1];
      try {
        id = decodeURIComponent(id);
      } catch (error) {
        // not percent-encoded: the id as written
      }
      this.context.ready.then(() => holdAtTop(this, id));
    };
  }

  const plugin = {
    id: "bmlab-links:plugin",
    description: "Keeps the cell a #cell-id= link names at the top while its notebook renders.",
    autoStart: true,
    activate: (app) => {
      const shell = app.shell;
      if (!shell || !shell.currentChanged || typeof shell.widgets !== "function") return;
      const patched = new WeakSet();
      for (const widget of shell.widgets("main")) patch(widget, patched);
      shell.currentChanged.connect((_, change) => patch(change.newValue, patched));
    },
  };

  const module = { __esModule: true, default: [plugin] };
  const registry = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  registry["bmlab-links"] = {
    init: () => Promise.resolve(),
    get: (name) =>
      name === "./extension"
        ? Promise.resolve(() => module)
        : Promise.reject(new Error(`bmlab-links has no module ${name}`)),
  };
})();
