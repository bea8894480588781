// The net as a picture (templates/synapses/net.html): fetches the page's data with the session,
// draws knots as nodes (size by presence, colour by category) and edges (colour by their first
// layer, width by weight) with cytoscape.js, and shows a clicked knot in the side panel.
// Text from the net is only ever set as textContent, never parsed as HTML.
//
// Performance marks: "net-start" (script ran), "net-data" (JSON parsed), "net-drawn" (first frame
// after the layout); the measure "net-draw" spans start to drawn. bench/net_picture.py reads it.
(function () {
  "use strict";

  // Above this many knots the force-directed layout costs seconds: the knots are placed on a
  // sunflower spiral instead, the most present in the middle (knots).
  var FORCE_LAYOUT_MAX_NODES = 300;
  // Distance between neighbouring knots on the spiral (pixels at zoom 1).
  var SPIRAL_SPACING_PX = 14;
  // The golden angle (radians): successive knots of the spiral never line up.
  var GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));
  // Node diameter at presence 0 and its growth per unit of sqrt(presence) (pixels).
  var NODE_MIN_PX = 8;
  var NODE_PX_PER_SQRT_PRESENCE = 7;

  var container = document.getElementById("net");
  var status = document.getElementById("net-status");
  var panel = document.getElementById("net-panel");
  if (!container) {
    return;
  }
  performance.mark("net-start");
  if (typeof window.cytoscape !== "function") {
    status.textContent = "The drawing library did not load; the picture cannot be drawn.";
    return;
  }

  var styles = window.getComputedStyle(document.documentElement);
  function cssColour(name, fallback) {
    return styles.getPropertyValue(name).trim() || fallback;
  }

  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    if (className) {
      node.className = className;
    }
    return node;
  }

  function fact(list, term, value) {
    list.appendChild(element("dt", term));
    list.appendChild(element("dd", value));
  }

  // What the panel shows of each knot and edge, by the element's id. Kept beside the graph, not
  // in its elements' data: cytoscape.js copies every element's data, which for 1,000 knots with
  // their content doubled the time to build the graph.
  var knotsById = new Map();
  var edgesById = new Map();

  function spiralPosition(index) {
    // The data lists the knots most present first, so the strongest sit in the middle.
    var radius = SPIRAL_SPACING_PX * Math.sqrt(index);
    var angle = index * GOLDEN_ANGLE;
    return { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
  }

  function toElements(data, placed) {
    var colours = {};
    function colour(name, fallback) {
      if (!(name in colours)) {
        colours[name] = cssColour(name, fallback);
      }
      return colours[name];
    }
    var nodes = data.nodes.map(function (knot, index) {
      var id = String(knot.id);
      knotsById.set(id, knot);
      var node = {
        group: "nodes",
        data: {
          id: id,
          label: knot.key,
          colour: colour("--category-" + knot.category, "#888888"),
          size: NODE_MIN_PX + NODE_PX_PER_SQRT_PRESENCE * Math.sqrt(Math.max(0, knot.weight_present)),
        },
      };
      if (placed) {
        node.position = spiralPosition(index);
      }
      return node;
    });
    var edges = data.edges.map(function (edge) {
      var id = "e" + edge.id;
      edgesById.set(id, edge);
      return {
        group: "edges",
        data: {
          id: id,
          source: String(edge.source),
          target: String(edge.target),
          colour: colour("--layer-" + edge.layers[0], "#999999"),
          width: 0.5 + edge.weight / 3,
        },
      };
    });
    return nodes.concat(edges);
  }

  function showKnot(cy, node) {
    var knot = knotsById.get(node.id());
    cy.elements().removeClass("faded");
    cy.elements().not(node.closedNeighborhood()).addClass("faded");
    panel.replaceChildren();
    panel.appendChild(element("h2", knot.key || "knot " + knot.id));
    panel.appendChild(element("p", knot.content, "content"));
    var link = element("a", "Open the memory");
    link.href = knot.memory_url;
    panel.appendChild(element("p")).appendChild(link);
    var facts = element("dl", null, "facts");
    fact(facts, "Knot", String(knot.id));
    fact(facts, "Category", knot.category);
    fact(facts, "Speaker", knot.observer);
    fact(facts, "Presence", knot.weight_present.toFixed(3));
    fact(facts, "Anchor weight", knot.weight_anchor.toFixed(3));
    fact(facts, "Used", knot.activation_count + " time" + (knot.activation_count === 1 ? "" : "s"));
    fact(facts, "Verified", knot.verified ? "yes" : "no");
    fact(facts, "Themes", knot.themes.length ? knot.themes.join(", ") : "none");
    fact(facts, "Entities", knot.entities.length ? knot.entities.join(", ") : "none");
    if (knot.superseded) {
      fact(facts, "Version", "an earlier one: the memory has changed since");
    }
    panel.appendChild(facts);
    var edges = node.connectedEdges().sort(function (a, b) {
      return edgesById.get(b.id()).weight - edgesById.get(a.id()).weight;
    });
    panel.appendChild(element("h3", edges.length + " edge" + (edges.length === 1 ? "" : "s") + " drawn"));
    var list = element("ul", null, "knot-edges");
    edges.forEach(function (edgeElement) {
      var edge = edgesById.get(edgeElement.id());
      var other = edgeElement.source().id() === node.id() ? edgeElement.target() : edgeElement.source();
      var item = element("li");
      var jump = element("button", knotsById.get(other.id()).key || "knot " + other.id(), "link");
      jump.type = "button";
      jump.addEventListener("click", function () {
        showKnot(cy, other);
      });
      item.appendChild(jump);
      var why = edge.layers.join(" + ") + ", weight " + edge.weight.toFixed(2);
      if (edge.shared_entities.length) {
        why += "; shares " + edge.shared_entities.join(", ");
      }
      if (edge.shared_themes.length) {
        why += "; themes " + edge.shared_themes.join(", ");
      }
      item.appendChild(element("span", " — " + why, "muted"));
      list.appendChild(item);
    });
    panel.appendChild(list);
    panel.dataset.knot = String(knot.id);
  }

  function draw(data) {
    performance.mark("net-data");
    if (!data.nodes.length) {
      status.textContent = "No active knot matches: nothing to draw yet (memories become knots when they are promoted).";
      container.dataset.drawn = "0";
      return;
    }
    var force = data.nodes.length <= FORCE_LAYOUT_MAX_NODES;
    var layout = force
      ? { name: "cose", animate: false, randomize: true, numIter: 500, nodeDimensionsIncludeLabels: false }
      : { name: "preset", fit: true, padding: 10 };
    var cy = window.cytoscape({
      container: container,
      elements: toElements(data, !force),
      layout: { name: "preset", fit: false },
      minZoom: 0.05,
      maxZoom: 4,
      hideEdgesOnViewport: data.edges.length > 2000,
      textureOnViewport: data.nodes.length > 500,
      style: [
        {
          selector: "node",
          style: {
            "background-color": "data(colour)",
            width: "data(size)",
            height: "data(size)",
            label: data.nodes.length <= 150 ? "data(label)" : "",
            "font-size": 8,
            color: cssColour("--ink", "#1d2430"),
          },
        },
        {
          selector: "edge",
          style: { "line-color": "data(colour)", width: "data(width)", opacity: 0.55, "curve-style": "haystack" },
        },
        { selector: "node:selected", style: { "border-width": 3, "border-color": cssColour("--ink", "#1d2430") } },
        { selector: ".faded", style: { opacity: 0.12 } },
      ],
    });
    var running = cy.layout(layout);
    // The layout may finish after this call returns (cose iterates in steps): the picture is
    // drawn at the first frame after it stops.
    running.one("layoutstop", function () {
      window.requestAnimationFrame(drawn);
    });
    running.run();
    function drawn() {
      performance.mark("net-drawn");
      var measure = performance.measure("net-draw", "net-start", "net-drawn");
      var message = "Drew " + data.nodes.length + " knot" + (data.nodes.length === 1 ? "" : "s") + " and ";
      message += data.edges.length + " edge" + (data.edges.length === 1 ? "" : "s") + " in " + Math.round(measure.duration) + " ms";
      message += force ? " (force-directed layout)." : " (a spiral: the most present in the middle).";
      if (data.truncated) {
        message += " More knots match: these are the most present; narrow the filters to see others.";
      }
      status.textContent = message;
      container.dataset.drawn = String(cy.nodes().length);
    }
    cy.on("tap", "node", function (event) {
      showKnot(cy, event.target);
    });
    cy.on("tap", function (event) {
      if (event.target === cy) {
        cy.elements().removeClass("faded");
      }
    });
    // For the browser tests and the console: the drawn graph and what each knot holds.
    window.synapseNet = { cy: cy, knots: knotsById, showKnot: showKnot };
  }

  fetch(container.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) {
          throw new Error(body.detail || "the server answered " + response.status);
        }
        return body;
      });
    })
    .then(draw)
    .catch(function (error) {
      status.textContent = "The net could not be drawn: " + error.message;
      status.classList.add("error-text");
    });
})();
