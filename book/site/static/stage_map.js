// Chapter 0's map, interactive: the reader picks a mode (eager or jit) and a device; the figure
// lights the route of that choice, lists its steps, and shows what the running example is at
// each stage. It draws into <div id="stage-map"> from window.STAGE_MAP, which
// stage_map_data.js sets (made by book/stage_map.py when the site is built).
(() => {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";

  // An element with attributes (and text), appended to a parent.
  function make(tag, attrs, parent, text, ns) {
    const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined && text !== null) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  const svg = (tag, attrs, parent, text) => make(tag, attrs, parent, text, SVG);

  // Text whose `backquoted` parts are code.
  function prose(parent, text) {
    text.split("`").forEach((part, i) => {
      if (i % 2) make("code", {}, parent, part);
      else parent.appendChild(document.createTextNode(part));
    });
    return parent;
  }

  // The path of an arrow from stage a to stage b, and the point where its step number goes.
  function arrow(a, b, hit, data) {
    const half = data.box.height / 2;
    if (hit) {        // a cache hit: out of the cache's far side, down a lane, into PJRT's side
      const side = a.x < data.width / 2 ? -1 : 1;
      const lane = data.lanes[side < 0 ? 0 : 1];
      const x1 = a.x + side * data.box.width / 2, x2 = b.x + side * data.box.width / 2;
      const r = 10 * side, down = b.y > a.y ? 10 : -10;
      return {d: `M${x1},${a.y} H${lane - r} Q${lane},${a.y} ${lane},${a.y + down} ` +
                 `V${b.y - down} Q${lane},${b.y} ${lane - r},${b.y} H${x2}`,
              at: [lane, (a.y + b.y) / 2]};
    }
    if (a.y === b.y) {  // the same row
      const s = Math.sign(b.x - a.x);
      const x1 = a.x + s * data.box.width / 2, x2 = b.x - s * data.box.width / 2;
      return {d: `M${x1},${a.y} H${x2}`, at: [(x1 + x2) / 2, a.y - 11]};
    }
    const s = Math.sign(b.y - a.y), y1 = a.y + s * half, y2 = b.y - s * half, ym = (y1 + y2) / 2;
    return {d: `M${a.x},${y1} C${a.x},${ym} ${b.x},${ym} ${b.x},${y2}`,
            at: [(a.x + b.x) / 2, ym]};
  }

  function build(root, data) {
    const stages = Object.fromEntries(data.stages.map(s => [s.id, s]));
    const state = {...data.default};
    root.textContent = "";
    root.classList.add("sm");

    // The controls: two groups of radio buttons.
    const controls = make("form", {class: "sm-controls"}, root);
    controls.addEventListener("submit", e => e.preventDefault());
    for (const [name, legend, options] of [["mode", "Mode", data.modes],
                                           ["device", "Device", data.devices]]) {
      const group = make("fieldset", {class: `sm-${name}`}, controls);
      make("legend", {}, group, legend);
      for (const [value, label] of options) {
        const option = make("label", {}, group);
        const input = make("input", {type: "radio", name: `stage-map-${name}`, value}, option);
        input.checked = state[name] === value;
        input.addEventListener("change", () => { state[name] = value; update(); });
        option.appendChild(document.createTextNode(` ${label}`));
      }
    }

    // The figure.
    const figure = svg("svg", {class: "sm-graph", viewBox: `0 0 ${data.width} ${data.height}`,
                               "aria-labelledby": "stage-map-title"}, root);
    svg("title", {id: "stage-map-title"}, figure,
        "The stages of a JAX program, with the route of the chosen mode and device lit");
    const defs = svg("defs", {}, figure);
    for (const kind of ["on", "off", "hit"]) {
      const marker = svg("marker", {id: `sm-head-${kind}`, viewBox: "0 0 10 10", refX: 9,
                                    refY: 5, markerWidth: 7, markerHeight: 7,
                                    orient: "auto-start-reverse"}, defs);
      svg("path", {d: "M0,0 L10,5 L0,10 z", class: `sm-head sm-head-${kind}`}, marker);
    }
    for (const layer of data.layers) {
      svg("rect", {class: `sm-layer sm-layer-${layer.kind}`, x: 0, y: layer.y0,
                   width: data.width, height: layer.y1 - layer.y0}, figure);
      svg("text", {class: "sm-layer-title", x: 30, y: layer.y0 + 15}, figure, layer.title);
    }
    const f = data.frame;
    svg("rect", {class: "sm-frame", x: f.x, y: f.y, width: f.width, height: f.height, rx: 10},
        figure);
    const frameTitle = svg("text", {class: "sm-frame-title", x: f.x + f.width - 10,
                                    y: f.y + 15}, figure);

    // The arrows: every step of every route, each pair of stages once.
    const arrows = {}, edgeLayer = svg("g", {}, figure);
    for (const route of Object.values(data.routes)) {
      for (const step of route) {
        const key = `${step.from}>${step.to}`;
        if (arrows[key]) continue;
        const shape = arrow(stages[step.from], stages[step.to], step.hit, data);
        const path = svg("path", {d: shape.d, class: "sm-edge" + (step.hit ? " sm-hit" : ""),
                                  "data-from": step.from, "data-to": step.to}, edgeLayer);
        arrows[key] = {path, at: shape.at, hit: step.hit};
      }
    }

    // The stages: a box each, that shows its artifact when clicked; the chapters are links.
    const boxes = {}, w = data.box.width, h = data.box.height;
    for (const s of data.stages) {
      const g = svg("g", {class: `sm-stage sm-kind-${s.layer}`, "data-stage": s.id,
                          tabindex: 0, role: "button",
                          "aria-label": `${s.title}: show this stage`}, figure);
      svg("rect", {class: "sm-box", x: s.x - w / 2, y: s.y - h / 2, width: w, height: h,
                   rx: s.layer === "cache" ? 16 : 7}, g);
      svg("text", {class: "sm-title", x: s.x, y: s.y - 9}, g, s.title);
      svg("text", {class: "sm-sub", x: s.x, y: s.y + 6}, g, s.sub);
      const links = svg("text", {class: "sm-links", x: s.x, y: s.y + 20}, g);
      s.chapters.forEach((stem, i) => {
        const ch = data.chapters[stem];
        if (i) svg("tspan", {}, links, " · ");
        if (ch.href) {
          const a = svg("a", {href: ch.href, class: "sm-chapter"}, links);
          svg("title", {}, a, ch.title);
          svg("tspan", {}, a, ch.label);
        } else {
          const t = svg("tspan", {class: "sm-chapter-missing"}, links, ch.label);
          svg("title", {}, t, `${ch.title} (not on this site yet)`);
        }
      });
      const choose = () => { state.stage = s.id; update(); };
      g.addEventListener("click", e => { if (!e.target.closest("a")) choose(); });
      g.addEventListener("keydown", e => {
        if ((e.key === "Enter" || e.key === " ") && !e.target.closest("a")) {
          e.preventDefault();
          choose();
        }
      });
      boxes[s.id] = g;
    }
    const badges = svg("g", {class: "sm-badges"}, figure);

    // Below the figure: the chosen stage's panel, then the route's steps.
    const panel = make("section", {class: "sm-panel", "aria-live": "polite"}, root);
    const stepsTable = make("table", {class: "sm-steps"}, root);

    function stageButton(parent, id) {
      const button = make("button", {type: "button", class: "sm-ref", "data-stage": id}, parent,
                          stages[id].title);
      button.addEventListener("click", () => {
        state.stage = id;
        update();
        panel.scrollIntoView({block: "nearest"});
      });
      return button;
    }

    function showPanel(route) {
      const s = stages[state.stage];
      const a = data.artifacts[s.id][`${state.mode}/${state.device}`];
      panel.textContent = "";
      const head = make("p", {class: "sm-panel-title"}, panel);
      make("strong", {}, head, s.title);
      const numbers = route.flatMap((step, i) => step.from === s.id || step.to === s.id
                                                   ? [i + 1] : []);
      const choice = `${state.mode} on ${data.devices.find(d => d[0] === state.device)[1]}`;
      const list = numbers.length > 1
        ? `steps ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`
        : `step ${numbers[0]}`;
      make("span", {class: "sm-where" + (numbers.length ? "" : " sm-off-route")}, head,
           numbers.length ? ` on the route of ${choice}: ${list}`
                          : ` not on the route of ${choice}`);
      prose(make("p", {class: "sm-about"}, panel), s.about);
      const built = make("p", {class: "sm-built"}, panel, "Built in ");
      s.chapters.forEach((stem, i) => {
        const ch = data.chapters[stem];
        if (i) built.appendChild(document.createTextNode(" and "));
        const name = `${ch.label.replace("ch", "chapter")}, ${ch.title}`;
        if (ch.href) make("a", {href: ch.href}, built, name);
        else make("span", {class: "sm-chapter-missing"}, built, `${name} (not on this site yet)`);
      });
      built.appendChild(document.createTextNode("."));
      if (a.note) prose(make("p", {class: "sm-note"}, panel), a.note);
      if (a.caption) prose(make("p", {class: "sm-caption"}, panel), a.caption);
      if (a.text !== null) make("pre", {class: "sm-artifact"}, panel, data.texts[a.text]);
    }

    function showSteps(route) {
      stepsTable.textContent = "";
      const name = data.devices.find(d => d[0] === state.device)[1];
      make("caption", {}, stepsTable, `The route of ${state.mode} on ${name}, step by step`);
      const row = make("tr", {}, make("thead", {}, stepsTable));
      for (const title of ["#", "from", "what happens", "to"]) make("th", {}, row, title);
      const body = make("tbody", {}, stepsTable);
      route.forEach((step, i) => {
        const tr = make("tr", {class: step.hit ? "sm-step-hit" : ""}, body);
        make("td", {class: "sm-n"}, tr, String(i + 1));
        stageButton(make("td", {class: "sm-from"}, tr), step.from);
        prose(make("td", {class: "sm-what"}, tr), step.what);
        stageButton(make("td", {class: "sm-to"}, tr), step.to);
      });
    }

    function update() {
      const route = data.routes[`${state.mode}/${state.device}`];
      const on = new Set(route.flatMap(step => [step.from, step.to]));
      root.dataset.mode = state.mode;
      root.dataset.device = state.device;
      for (const [id, g] of Object.entries(boxes)) {
        g.classList.toggle("sm-on", on.has(id));
        g.classList.toggle("sm-off", !on.has(id));
        g.classList.toggle("sm-selected", id === state.stage);
        g.setAttribute("aria-pressed", String(id === state.stage));
      }
      const numbers = {};
      route.forEach((step, i) => { numbers[`${step.from}>${step.to}`] = i + 1; });
      badges.textContent = "";
      for (const [key, edge] of Object.entries(arrows)) {
        const n = numbers[key];
        const kind = n ? (edge.hit ? "hit" : "on") : "off";
        edge.path.setAttribute("class", `sm-edge sm-edge-${kind}` + (edge.hit ? " sm-hit" : ""));
        edge.path.setAttribute("marker-end", `url(#sm-head-${kind})`);
        if (n) {
          const badge = svg("g", {class: `sm-badge sm-badge-${kind}`}, badges);
          svg("circle", {cx: edge.at[0], cy: edge.at[1], r: 9}, badge);
          svg("text", {x: edge.at[0], y: edge.at[1] + 4}, badge, String(n));
        }
      }
      for (const edge of Object.values(arrows))       // the route's arrows over the others
        if (numbers[`${edge.path.dataset.from}>${edge.path.dataset.to}`])
          edgeLayer.appendChild(edge.path);
      frameTitle.textContent = data.miss[state.mode];
      showPanel(route);
      showSteps(route);
    }

    update();
  }

  document.addEventListener("DOMContentLoaded", () => {
    const root = document.getElementById("stage-map");
    if (root && window.STAGE_MAP) build(root, window.STAGE_MAP);
  });
})();
