// projectl-sim replay viewer: draws the states the engine computed; holds no rules.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("game").textContent);
  const game = data.game;
  const pieces = data.catalogue.pieces;
  const puzzles = data.catalogue.puzzles;
  const steps = data.steps;
  const last = steps.length;

  // -- the states: the first in full, then each step's changes ---------------------------------
  const states = [data.states[0]];
  for (let i = 1; i < data.states.length; i++) {
    const prev = states[i - 1];
    const change = data.states[i];
    const next = Object.assign({}, prev);
    for (const key of Object.keys(change)) {
      if (key === "players") continue;
      if (change[key] === null) delete next[key];
      else next[key] = change[key];
    }
    next.players = prev.players.map(function (p, seat) {
      const row = Object.assign({}, p);
      const diff = change.players ? change.players[seat] : {};
      for (const key of Object.keys(diff)) {
        if (diff[key] === null) delete row[key];
        else row[key] = diff[key];
      }
      return row;
    });
    states.push(next);
  }

  // each seat's decisions and seconds up to each step (for the decision times)
  const timed = steps.some(function (s) { return s.seconds !== undefined; });
  const made = [new Array(game.players).fill(0)];
  const spent = [new Array(game.players).fill(0)];
  steps.forEach(function (s, i) {
    const m = made[i].slice();
    const t = spent[i].slice();
    m[s.player] += 1;
    if (s.seconds !== undefined) t[s.player] += s.seconds;
    made.push(m);
    spent.push(t);
  });

  // -- small drawing helpers -------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function seatName(seat) {
    return "seat " + seat + " (" + game.seats[seat] + ")";
  }
  function duration(seconds) {
    if (seconds < 0.001) return (seconds * 1e6).toFixed(0) + " \u00b5s";
    if (seconds < 1) return (seconds * 1000).toFixed(1) + " ms";
    return seconds.toFixed(2) + " s";
  }
  function colourOf(pid) {
    return pieces[pid] ? pieces[pid].colour : "#888";
  }

  function pieceIcon(pid, px) {
    const piece = pieces[pid];
    const box = el("span", "piece");
    box.title = pid;
    if (!piece) { box.textContent = pid; return box; }
    const rows = 1 + Math.max.apply(null, piece.cells.map(function (c) { return c[0]; }));
    const cols = 1 + Math.max.apply(null, piece.cells.map(function (c) { return c[1]; }));
    box.style.gridTemplateColumns = "repeat(" + cols + ", " + px + "px)";
    box.style.gridTemplateRows = "repeat(" + rows + ", " + px + "px)";
    const on = {};
    piece.cells.forEach(function (c) { on[c[0] * 10 + c[1]] = true; });
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const cell = el("div", on[r * 10 + c] ? "on" : "");
        if (on[r * 10 + c]) {
          cell.style.background = piece.colour;
          if (piece.ghost) cell.classList.add("ghost-hatch");
        }
        box.appendChild(cell);
      }
    }
    return box;
  }

  function rewardLabel(reward) {
    if (pieces[reward]) return pieceIcon(reward, 6);
    const names = { level_up_1: "\u2191", level_up_2: "\u21c8", ambassador: "Amb." };
    const s = el("span", "", names[reward] || reward);
    s.title = reward;
    return s;
  }

  // One puzzle card: its recess, the pieces placed on it outlined, its points and reward.
  function card(pid, placed, label) {
    const pz = puzzles[pid];
    const box = el("div", "card" + (pz && pz.colour === "black" ? " black" : ""));
    box.dataset.puzzle = pid;
    const top = el("div", "top");
    top.appendChild(el("span", "id", (label ? label + " " : "") + pid));
    top.appendChild(el("span", "pts", pz ? pz.points : "?"));
    box.appendChild(top);
    const grid = el("div", "grid5");
    const owner = {};
    (placed || []).forEach(function (p, k) {
      p.cells.forEach(function (rc) { owner[rc[0] * 5 + rc[1]] = k; });
    });
    for (let r = 0; r < 5; r++) {
      for (let c = 0; c < 5; c++) {
        const i = r * 5 + c;
        const inside = pz && pz.rows[r][c] === "#";
        const cell = el("div", "");
        if (owner[i] !== undefined) {
          const k = owner[i];
          const pid2 = placed[k].piece;
          cell.className = "fill";
          cell.style.background = colourOf(pid2);
          if (pieces[pid2] && pieces[pid2].ghost) cell.classList.add("ghost-hatch");
          cell.title = pid2;
          if (r === 0 || owner[i - 5] !== k) cell.classList.add("bt");
          if (r === 4 || owner[i + 5] !== k) cell.classList.add("bb");
          if (c === 0 || owner[i - 1] !== k) cell.classList.add("bl");
          if (c === 4 || owner[i + 1] !== k) cell.classList.add("br");
        } else if (inside) {
          cell.className = "hole";
        }
        grid.appendChild(cell);
      }
    }
    box.appendChild(grid);
    const bottom = el("div", "bottom");
    bottom.appendChild(el("span", "muted", "reward"));
    if (pz) bottom.appendChild(rewardLabel(pz.reward));
    box.appendChild(bottom);
    return box;
  }

  function emptyCard(text) {
    const box = el("div", "card empty", text);
    return box;
  }

  function chip(pid, extra) {
    const pz = puzzles[pid];
    const c = el("span", "chip" + (pz && pz.colour === "black" ? " black" : "") + (extra || ""));
    c.textContent = pid + (pz ? " \u00b7 " + pz.points : "");
    return c;
  }

  function pieceList(counts, showZero) {
    const box = el("div", "pieces");
    const ids = Object.keys(pieces).filter(function (pid) {
      return showZero ? counts[pid] !== undefined : counts[pid] > 0;
    });
    if (!ids.length) box.appendChild(el("span", "muted", "none"));
    ids.forEach(function (pid) {
      const item = el("span", "item");
      item.title = pid;
      item.appendChild(pieceIcon(pid, 9));
      item.appendChild(el("span", "count" + (counts[pid] ? "" : " zero"), "\u00d7" + counts[pid]));
      box.appendChild(item);
    });
    return box;
  }

  function piecesOfList(list) {
    const counts = {};
    list.forEach(function (pid) { counts[pid] = (counts[pid] || 0) + 1; });
    return pieceList(counts, false);
  }

  // -- the table: rows and decks (or the solo grid), Finesse, the reserve ---------------------
  function rowsPanel(s) {
    const panel = el("div", "panel");
    const lc = s.line_clear;
    const sets = s.rows || [];
    panel.appendChild(el("h2", "", lc ? "Rows (Line Clear)" : "Rows"));
    const sides = el("div", "sides");
    sets.forEach(function (set, k) {
      const side = el("div", "side");
      if (lc) {
        side.appendChild(el("h3", "", k === 0
          ? "left \u00b7 white marker: " + seatName(lc.markers.white)
          : "right \u00b7 black marker: " + seatName(lc.markers.black)));
      }
      ["white", "black"].forEach(function (colour) {
        const line = el("div", "row-line");
        const label = colour + " row" + (k === 0 ? "\n" + s.decks[colour] + " in deck" : "");
        const lab = el("div", "row-label", label);
        lab.style.whiteSpace = "pre-line";
        line.appendChild(lab);
        const cards = el("div", "cards");
        set[colour].forEach(function (pid) { cards.appendChild(card(pid, [])); });
        if (!set[colour].length) cards.appendChild(el("span", "muted", "empty"));
        line.appendChild(cards);
        side.appendChild(line);
      });
      sides.appendChild(side);
    });
    panel.appendChild(sides);
    return panel;
  }

  function soloPanel(s) {
    const panel = el("div", "panel");
    const deck = s.decks.white + s.decks.black;
    panel.appendChild(el("h2", "", "Solo grid"));
    panel.appendChild(el("div", "stat",
      "deck: " + deck + " (" + s.decks.white + " white on top, " + s.decks.black + " black)"));
    panel.appendChild(el("h3", "", "locks above the columns"));
    const locks = el("div", "locks");
    s.locks.forEach(function (col, c) {
      const lock = el("div", "lock");
      lock.dataset.column = c + 1;
      lock.appendChild(el("span", "pos", "column " + (c + 1) + ":"));
      if (!col.length) lock.appendChild(el("span", "muted", "open"));
      col.forEach(function (pid) { lock.appendChild(pieceIcon(pid, 7)); });
      locks.appendChild(lock);
    });
    panel.appendChild(locks);
    const grid = el("div", "solo-grid");
    s.grid.forEach(function (pid, pos) {
      grid.appendChild(pid === null ? emptyCard((pos + 1) + ": empty") : card(pid, [], (pos + 1) + ":"));
    });
    panel.appendChild(grid);
    return panel;
  }

  function mastermindPanel(s) {
    const o = s.opponent;
    const panel = el("div", "panel");
    const head = el("div", "panel-head");
    head.appendChild(el("span", "name", "the mastermind"));
    const sc = el("span", "stat", "score ");
    const val = el("span", "score", o.score);
    val.dataset.seat = "opponent";
    sc.appendChild(val);
    head.appendChild(sc);
    head.appendChild(el("span", "stat", "completed " + o.completed.length));
    panel.appendChild(head);
    panel.appendChild(el("h3", "", "supply"));
    panel.appendChild(piecesOfList(o.supply));
    panel.appendChild(el("h3", "", "pile"));
    const chips = el("div", "chips");
    o.completed.forEach(function (pid) { chips.appendChild(chip(pid)); });
    if (!o.completed.length) chips.appendChild(el("span", "muted", "none"));
    panel.appendChild(chips);
    return panel;
  }

  const TRIGGERS = {
    place: "per depicted piece placed",
    master: "per piece a Master or Ambassador places",
    complete: "per puzzle completed",
    take: "per Take",
    upgrade: "per Upgrade",
    recycle: "per Recycle",
    insert: "per Insert",
    own: "end of turn: per depicted piece held",
    unfinished: "end of turn: per unfinished puzzle",
    variety: "end of turn: per depicted shape held",
    no_unfinished: "end of turn: no unfinished puzzle (once)",
    every_level: "end of turn: every level 1-4 held (once)",
    distinct_shapes: "end of turn: no two pieces of a shape (once)",
    no_level_1_2: "end of turn: no level-1 or 2 piece (once)",
  };

  function finessePanel(s) {
    const f = s.finesse;
    const panel = el("div", "panel");
    panel.appendChild(el("h2", "", "Finesse"));
    panel.appendChild(el("div", "stat", "bank: " + f.bank + " Credits \u00b7 round " + f.round +
      (f.current_tile ? " \u00b7 this round's tile: " + f.current_tile : " \u00b7 no tile counts this round")));
    const row = el("div", "tiles");
    f.tiles.forEach(function (tid, r) {
      const info = tid ? data.tiles[tid] : null;
      const box = el("div", "tile" + (info ? " " + info.colour : ""));
      const past = r + 1 < f.round;
      if (past) box.classList.add("gone");
      if (r + 1 === f.round && f.current_tile) box.classList.add("current");
      if (r < 2) box.classList.add("down");
      box.appendChild(el("div", "id", (r + 1) + ". " + (tid || "?") + (past ? " \u00b7 past" : "")));
      if (r < 2) box.appendChild(el("div", "", "face down"));
      if (info) {
        box.appendChild(el("div", "", (info.credits > 1 ? info.credits + " Credits " : "") +
          (TRIGGERS[info.trigger] || info.trigger)));
        if (info.pieces.length) box.appendChild(el("div", "muted", info.pieces.join(" ")));
      }
      row.appendChild(box);
    });
    panel.appendChild(row);
    return panel;
  }

  function reservePanel(s) {
    const panel = el("div", "panel");
    panel.appendChild(el("h2", "", "Reserve"));
    panel.appendChild(pieceList(s.reserve, true));
    return panel;
  }

  const KNOWN_TOP = ["phase", "round", "turn", "to_move", "actions_left", "master_used",
    "trigger_round", "rows", "decks", "reserve", "players", "reward_options", "winners",
    "end_reason", "finesse", "opponent", "grid", "locks", "line_clear", "ghost_piece"];
  const KNOWN_PLAYER = ["score", "supply", "completed", "unfinished", "placed", "credits",
    "ambassadors", "noted", "ghost_exchanges", "levelled_up"];

  function otherPanel(s) {
    // what a user's expansion adds, shown as it is
    const rest = {};
    Object.keys(s).forEach(function (k) { if (KNOWN_TOP.indexOf(k) < 0) rest[k] = s[k]; });
    if (!Object.keys(rest).length) return null;
    const panel = el("div", "panel");
    panel.appendChild(el("h2", "", "More"));
    panel.appendChild(el("pre", "other", JSON.stringify(rest, null, 1)));
    return panel;
  }

  // -- a player's board ------------------------------------------------------------------------
  function playerPanel(s, seat, i) {
    const p = s.players[seat];
    const over = s.phase === "over";
    const panel = el("div", "panel player");
    panel.dataset.seat = seat;
    if (s.to_move === seat) panel.classList.add("to-move");
    const head = el("div", "panel-head");
    head.appendChild(el("span", "name", seatName(seat)));
    if (seat === game.first_player && game.variant !== "solo") head.appendChild(el("span", "badge", "first player"));
    const lc = s.line_clear;
    if (lc && lc.markers.white === seat) head.appendChild(el("span", "badge white-marker", "white marker"));
    if (lc && lc.markers.black === seat) head.appendChild(el("span", "badge black-marker", "black marker"));
    if (s.to_move === seat) {
      const what = s.phase === "play" ? "to move \u00b7 " + s.actions_left + " action" +
        (s.actions_left === 1 ? "" : "s") + " left" + (s.master_used ? " \u00b7 Master used" : "")
        : "to move \u00b7 " + s.phase.replace(/_/g, " ");
      head.appendChild(el("span", "badge moving", what));
    }
    if (over && s.winners && s.winners.indexOf(seat) >= 0) head.appendChild(el("span", "badge moving", "winner"));
    const sc = el("span", "stat", over ? "final score " : "points ");
    const val = el("span", "score", p.score);
    val.dataset.seat = seat;
    sc.appendChild(val);
    head.appendChild(sc);
    const completed = p.completed.length + (p.noted ? p.noted.length : 0);
    head.appendChild(el("span", "stat", "completed " + completed));
    if (p.credits) {
      head.appendChild(el("span", "stat", "Credits " + p.credits.active + " active" +
        (p.credits.inactive ? " + " + p.credits.inactive + " new" : "")));
    }
    if (p.ambassadors !== undefined) head.appendChild(el("span", "stat", "Ambassadors " + p.ambassadors));
    if (p.ghost_exchanges !== undefined) {
      head.appendChild(el("span", "stat", "Ghost actions " + p.ghost_exchanges +
        " \u00b7 Level Up steps " + p.levelled_up));
    }
    if (made[i][seat]) {
      let t = "decisions " + made[i][seat];
      if (timed) t += " \u00b7 mean " + duration(spent[i][seat] / made[i][seat]);
      head.appendChild(el("span", "stat", t));
    }
    panel.appendChild(head);
    panel.appendChild(el("h3", "", "supply"));
    panel.appendChild(pieceList(p.supply, false));
    panel.appendChild(el("h3", "", "unfinished puzzles (" + p.unfinished.length + ")"));
    const cards = el("div", "cards");
    p.unfinished.forEach(function (pid) { cards.appendChild(card(pid, p.placed[pid])); });
    if (!p.unfinished.length) cards.appendChild(el("span", "muted", "none"));
    panel.appendChild(cards);
    panel.appendChild(el("h3", "", "victory pile" + (p.noted && p.noted.length ? " (dashed: noted)" : "")));
    const chips = el("div", "chips");
    (p.noted || []).forEach(function (pid) {
      const c = chip(pid, " noted");
      c.title = "noted (Endless White Deck): its points are kept";
      chips.appendChild(c);
    });
    p.completed.forEach(function (pid) { chips.appendChild(chip(pid)); });
    if (!completed) chips.appendChild(el("span", "muted", "none"));
    panel.appendChild(chips);
    Object.keys(p).forEach(function (k) {
      if (KNOWN_PLAYER.indexOf(k) < 0) {
        panel.appendChild(el("div", "stat", k.replace(/_/g, " ") + ": " + JSON.stringify(p[k])));
      }
    });
    return panel;
  }

  // -- the caption: the action in words ----------------------------------------------------------
  function caption(i) {
    const s = states[i];
    const box = document.getElementById("caption");
    box.textContent = "";
    if (i === 0) {
      box.appendChild(el("div", "what", "The setup"));
      box.appendChild(el("div", "meta", game.variant === "solo"
        ? "the player moves first"
        : seatName(game.first_player) + " is the first player"));
    } else {
      const step = steps[i - 1];
      box.appendChild(el("div", "what", seatName(step.player) + ": " + step.text));
      if (step.events.length) box.appendChild(el("div", "then", "then " + step.events.join("; ")));
      const meta = [];
      if (step.seconds !== undefined) meta.push("decided in " + duration(step.seconds));
      if (meta.length) box.appendChild(el("div", "meta", meta.join(" \u00b7 ")));
    }
    if (s.phase === "over") {
      let text;
      if (game.variant === "solo") {
        text = s.winners.length ? "The player beats the mastermind" : "The mastermind wins";
      } else if (s.winners.length === 1) {
        text = "Winner: " + seatName(s.winners[0]);
      } else {
        text = "Shared win: " + s.winners.map(seatName).join(", ");
      }
      const scores = s.players.map(function (p, seat) { return "seat " + seat + " " + p.score; });
      if (s.opponent) scores.push("mastermind " + s.opponent.score);
      box.appendChild(el("div", "winners", text + " \u00b7 " + scores.join(", ") +
        (s.end_reason !== "rules" ? " (ended: " + s.end_reason + ")" : "")));
    } else {
      let next = "round " + s.round + " \u00b7 next: " + seatName(s.to_move);
      if (s.phase === "play") next += ", " + s.actions_left + " action" + (s.actions_left === 1 ? "" : "s") + " left";
      else if (s.phase === "reward") next += " chooses a reward (" + (s.reward_options || []).join(", ") + ")";
      else if (s.phase === "level_up") next += ", a Level Up step (" + s.ghost_piece.level_up_steps + " open)";
      else next += " (" + s.phase.replace(/_/g, " ") + ")";
      if (s.trigger_round) next += " \u00b7 end triggered in round " + s.trigger_round;
      box.appendChild(el("div", "next", next));
    }
  }

  // -- the win chances (the analysis board's): one line per seat, a cursor at the step ---------
  const SEAT_COLOURS = ["#0b6bcb", "#d1242f", "#1a7f37", "#8250df", "#bf8700"];
  function chanceGraph(chances) {
    const svg = document.getElementById("chance-graph");
    if (!svg || !chances) return null;
    const W = 1000, H = 160, PAD = 4;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("preserveAspectRatio", "none");
    const x = function (k) { return PAD + (W - 2 * PAD) * (last ? k / last : 0); };
    const y = function (p) { return PAD + (H - 2 * PAD) * (1 - p); };
    // markup parsed inside the page's <svg> element is SVG (no namespace to name)
    const parts = [];
    function node(tag, attrs) {
      parts.push("<" + tag + Object.keys(attrs).map(function (k) {
        return " " + k + '="' + attrs[k] + '"';
      }).join("") + "/>");
    }
    node("line", {x1: 0, x2: W, y1: y(0.5), y2: y(0.5), class: "half"});
    (chances.turning || []).forEach(function (k) {
      node("line", {x1: x(k), x2: x(k), y1: 0, y2: H, class: "turning"});
    });
    // every step faint; the turns' ends (where the evaluation scores alike) bold
    const ends = chances.turn_ends || chances.seats[0].map(function (p, k) { return k; });
    chances.seats.forEach(function (series, seat) {
      const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
      const at = function (k) { return x(k).toFixed(1) + "," + y(series[k]).toFixed(1); };
      node("polyline", {points: series.map(function (p, k) { return at(k); }).join(" "),
        class: "step", stroke: colour});
      node("polyline", {points: ends.map(at).join(" "), class: "seat", stroke: colour});
    });
    node("line", {x1: 0, x2: 0, y1: 0, y2: H, class: "cursor"});
    svg.innerHTML = parts.join("");
    const cursor = svg.querySelector(".cursor");
    const section = document.getElementById("chances");
    section.querySelector(".source").textContent = chances.source || "";
    const legend = section.querySelector(".legend");
    // clicking or dragging on the graph moves to that step
    function pick(e) {
      const r = svg.getBoundingClientRect();
      const f = (e.clientX - r.left) / Math.max(1, r.width);
      show(Math.round(f * last));
    }
    svg.addEventListener("mousedown", function (e) { pick(e); });
    svg.addEventListener("mousemove", function (e) { if (e.buttons & 1) pick(e); });
    // the step shown as a position file (projectl-position/1): the record cut there
    const save = document.getElementById("save-position");
    function savePosition(i) {
      if (!save || !chances.record) return;
      const record = Object.assign({}, chances.record);
      record.actions = chances.record.actions.slice(0, i);
      const position = {format: "projectl-position/1", step: i, record: record};
      save.setAttribute("href", "data:application/json;charset=utf-8,"
        + encodeURIComponent(JSON.stringify(position)));
      save.setAttribute("download", "position-" + i + ".json");
    }
    return function mark(i) {
      savePosition(i);
      cursor.setAttribute("x1", x(i));
      cursor.setAttribute("x2", x(i));
      legend.textContent = "";
      chances.seats.forEach(function (series, seat) {
        const item = el("span", "item");
        const swatch = el("span", "swatch");
        swatch.style.background = SEAT_COLOURS[seat % SEAT_COLOURS.length];
        item.appendChild(swatch);
        item.appendChild(document.createTextNode(
          seatName(seat) + " " + Math.round(100 * series[i]) + "%"));
        item.dataset.seat = String(seat);
        legend.appendChild(item);
      });
    };
  }

  // -- stepping ----------------------------------------------------------------------------------
  const slider = document.getElementById("slider");
  const counter = document.getElementById("counter");
  const log = document.getElementById("actions");
  const board = document.getElementById("board");
  slider.max = String(last);
  let at = 0;
  let timer = null;

  document.getElementById("seats").textContent = game.seats.map(function (name, seat) {
    return "seat " + seat + ": " + name;
  }).join(" \u00b7 ") + " \u00b7 " + last + " actions";

  steps.forEach(function (step, k) {
    const li = el("li", "");
    li.appendChild(el("span", "who", "s" + step.player + " "));
    li.appendChild(document.createTextNode(step.text));
    li.addEventListener("click", function () { show(k + 1); });
    log.appendChild(li);
  });

  const markChance = chanceGraph(data.chances);

  function show(i) {
    at = Math.max(0, Math.min(last, i));
    const s = states[at];
    if (markChance) markChance(at);
    slider.value = String(at);
    counter.textContent = "step " + at + " / " + last;
    caption(at);
    board.textContent = "";
    const table = el("div", "table");
    table.appendChild(s.grid ? soloPanel(s) : rowsPanel(s));
    if (s.opponent) table.appendChild(mastermindPanel(s));
    board.appendChild(table);
    if (s.finesse) board.appendChild(finessePanel(s));
    const seats = el("div", "players");
    s.players.forEach(function (p, seat) { seats.appendChild(playerPanel(s, seat, at)); });
    board.appendChild(seats);
    board.appendChild(reservePanel(s));
    const other = otherPanel(s);
    if (other) board.appendChild(other);
    Array.prototype.forEach.call(log.children, function (li, k) {
      li.classList.toggle("current", k + 1 === at);
    });
    const current = log.children[at - 1];
    const pane = log.parentNode;
    if (current) {
      // the list scrolls within its own box to bring the step to the middle of the part of the
      // box one can see (the box cut by the window)
      const r = current.getBoundingClientRect();
      const box = pane.getBoundingClientRect();
      const top = Math.max(box.top, 0);
      const bottom = Math.min(box.bottom, window.innerHeight);
      const seen = bottom > top + r.height ? [top, bottom] : [box.top, box.bottom];
      if (r.top < seen[0] + 30 || r.bottom > seen[1] - 10) {
        pane.scrollTop += r.top - (seen[0] + seen[1]) / 2;
      }
      // beside the board (the list sticks to the top), the list's end may be below the window
      // while the page is at its top: the page moves the least that shows it. Below the board
      // (a narrow window) the page stays where it is: moving it to the list would hide the
      // caption and the board under the toolbar
      const after = current.getBoundingClientRect();
      const sticky = getComputedStyle(pane).position === "sticky";
      if (sticky && (after.top < 0 || after.bottom > window.innerHeight)) {
        current.scrollIntoView({block: "nearest"});
      }
    } else {
      pane.scrollTop = 0;
    }
    if (history.replaceState) history.replaceState(null, "", "#" + at);
  }

  function turnStep(direction) {
    // the first step of the next (or this / the previous) turn
    const turnOf = function (k) { return states[k].turn; };
    let i = at;
    if (direction > 0) {
      while (i < last && turnOf(i) === turnOf(at)) i++;
    } else {
      if (i > 0 && turnOf(i - 1) !== turnOf(i)) i--;
      while (i > 0 && turnOf(i - 1) === turnOf(i)) i--;
    }
    return i;
  }

  function play() {
    const button = document.getElementById("play");
    if (timer) {
      clearInterval(timer);
      timer = null;
      button.textContent = "play";
      return;
    }
    if (at >= last) show(0);
    button.textContent = "pause";
    timer = setInterval(function () {
      if (at >= last) { play(); return; }
      show(at + 1);
    }, 600);
  }

  document.getElementById("first").addEventListener("click", function () { show(0); });
  document.getElementById("prev").addEventListener("click", function () { show(at - 1); });
  document.getElementById("next").addEventListener("click", function () { show(at + 1); });
  document.getElementById("last").addEventListener("click", function () { show(last); });
  document.getElementById("prev-turn").addEventListener("click", function () { show(turnStep(-1)); });
  document.getElementById("next-turn").addEventListener("click", function () { show(turnStep(1)); });
  document.getElementById("play").addEventListener("click", play);
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  document.addEventListener("keydown", function (e) {
    const keys = {
      ArrowLeft: function () { show(e.shiftKey ? turnStep(-1) : at - 1); },
      ArrowRight: function () { show(e.shiftKey ? turnStep(1) : at + 1); },
      PageUp: function () { show(turnStep(-1)); },
      PageDown: function () { show(turnStep(1)); },
      Home: function () { show(0); },
      End: function () { show(last); },
      " ": play,
    };
    const act = keys[e.key];
    if (!act || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    act();
  });

  // the address names the step (#50): when the page opens, and whenever the address changes
  // (typed, a link, back and forward); show() keeps it up to date without a hashchange
  function hashStep() {
    const k = parseInt((location.hash || "").slice(1), 10);
    return isNaN(k) ? null : k;
  }
  window.addEventListener("hashchange", function () {
    const k = hashStep();
    if (k !== null && k !== at) show(k);
  });
  show(hashStep() || 0);
})();
