// bmlab-links: a link to "notebook.ipynb#cell-id=ID" lands on that cell every time.
//
// JupyterLab 4 applies the fragment (NotebookPanel.setFragment) once the notebook's model is
// loaded, before its cells are rendered: it scrolls to the cell while the cells above it are
// still empty, and when they render (Markdown, MathJax, stored figures) they push the cell
// down, so the notebook stays near its top. This plugin keeps the cell at the top of the
// panel each time the notebook's height changes, until every cell is rendered and the height
// has then been still for QUIET_MS, the reader scrolls, clicks or types, or LIMIT_MS passed.
//
// Hand-written, no build step: a module-federation container of the shape JupyterLab loads
// for a prebuilt extension (window._JUPYTERLAB[name] with init and get), with one plugin that
// needs no token. Installed into <prefix>/share/jupyter/labextensions/bmlab-links/.
(function () {
  "use strict";
  const QUIET_MS = 3000;
  const LIMIT_MS = 30000;
  const READER = ["wheel", "touchstart", "pointerdown", "keydown"];

  function holdAtTop(panel, id) {
    const notebook = panel.content;
    const scroller = notebook.outerNode || notebook.node;
    const cells = notebook.viewportNode || notebook.node;
    let quiet = null;
    let rendered = false;
    let done = false;
    const observer = new ResizeObserver(() => align());
    const stop = () => {
      if (done) return;
      done = true;
      observer.disconnect();
      clearTimeout(quiet);
      clearTimeout(limit);
      READER.forEach((type) => panel.node.removeEventListener(type, stop, true));
    };
    const align = () => {
      if (done) return;
      if (panel.isDisposed) return stop();
      clearTimeout(quiet);
      if (rendered) quiet = setTimeout(stop, QUIET_MS);
      const cell = notebook.widgets.find((c) => c.model.id === id);
      if (!cell || !panel.isVisible) return;
      const offset = cell.node.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
      if (Math.abs(offset) >= 1) scroller.scrollTop += offset;
    };
    const limit = setTimeout(stop, LIMIT_MS);
    READER.forEach((type) => panel.node.addEventListener(type, stop, true));
    observer.observe(cells);
    align();
    const ready = Promise.all(notebook.widgets.map((c) => c.ready)).catch(() => undefined);
    ready.then(() => {
      rendered = true;
      align();
    });
  }

  function patch(widget, patched) {
    // A notebook panel: a document widget whose content is a windowed notebook.
    if (!widget || !widget.context || !widget.content || !("outerNode" in widget.content)) return;
    const proto = Object.getPrototypeOf(widget);
    if (patched.has(proto) || typeof proto.setFragment !== "function") return;
    patched.add(proto);
    const original = proto.setFragment;
    proto.setFragment = function (fragment) {
      original.call(this, fragment); // JupyterLab's own scroll, and it selects the cell
      const match = /^#cell-id=(.+)$/.exec(fragment || "");
      if (!match) return;
      const id = decodeURIComponent(match[1]);
      this.context.ready.then(() => holdAtTop(this, id));
    };
  }

  const plugin = {
    id: "bmlab-links:plugin",
    description: "Keeps the cell a #cell-id= link names at the top while the notebook renders.",
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
