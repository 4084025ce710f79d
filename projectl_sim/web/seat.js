// projectl-sim web seat: makes the person's options clickable on the viewer's board.
// Holds no rules: the server lists the legal options (choices) and checks every action.
"use strict";
(function () {
  const seat = JSON.parse(document.getElementById("seat-data").textContent);
  const game = JSON.parse(document.getElementById("game").textContent);
  const pieces = game.catalogue.pieces;
  const choices = seat.choices;
  const places = choices.places || {};
  const me = choices.seat;
  const slider = document.getElementById("slider");
  const board = document.getElementById("board");
  const messageBox = document.getElementById("seat-message");
  let selected = null; // the chosen piece's id
  const turned = {}; // piece id -> index of its orientation
  let mode = null; // "master" or "ambassador" while its placements are being chosen
  let pending = {}; // puzzle id -> placement, in a Master or Ambassador mode

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function say(text, isError) {
    messageBox.textContent = text;
    messageBox.className = isError ? "error" : "";
  }

  // -- the page loads again after each action: where it was scrolled, and the piece chosen
  // (turned as it was), are kept for the next (the viewer would scroll to its action list)
  const KEPT = "projectl-seat";
  function reload() {
    const kept = {scroll: window.scrollY, selected: selected, turned: turned};
    try { sessionStorage.setItem(KEPT, JSON.stringify(kept)); } catch (e) { /* private mode */ }
    location.reload();
  }
  function restore() {
    let kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(KEPT) || "null"); } catch (e) { kept = null; }
    if (!kept) return;
    Object.assign(turned, kept.turned || {});
    const placeable = Object.keys(places).some(function (card) {
      return places[card].some(function (p) { return p.piece === kept.selected; });
    });
    if (placeable) selected = kept.selected;
    window.scrollTo(0, kept.scroll || 0);
  }

  // -- talking to the server ---------------------------------------------------------------------
  function post(path, body) {
    return fetch(path, {
      method: "POST",
      headers: {"Content-Type": "application/json", "X-Seat-Token": seat.token},
      body: JSON.stringify(body || {}),
    }).then(function (r) {
      return r.json().then(function (answer) {
        if (!r.ok) throw new Error(answer.error || ("the server answered " + r.status));
        return answer;
      });
    });
  }
  function act(action) {
    if (document.getElementById("seat-insert").checked && action.type !== "insert") {
      action = {type: "insert", action: action};
    }
    document.body.classList.add("seat-busy");
    say("playing: the bots answer\u2026", false);
    post("/act", {action: action}).then(reload, function (e) {
      document.body.classList.remove("seat-busy");
      say("not played: " + e.message, true);
    });
  }

  // -- the pieces and their orientations -------------------------------------------------------
  function normal(cells) {
    const r0 = Math.min.apply(null, cells.map(function (c) { return c[0]; }));
    const c0 = Math.min.apply(null, cells.map(function (c) { return c[1]; }));
    return cells.map(function (c) { return [c[0] - r0, c[1] - c0]; }).sort(function (a, b) {
      return a[0] - b[0] || a[1] - b[1];
    });
  }
  function key(cells) {
    return cells.slice().sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; })
      .map(function (c) { return c[0] + "," + c[1]; }).join(";");
  }
  const orientationCache = {};
  function orientations(pid) {
    if (orientationCache[pid]) return orientationCache[pid];
    const out = [];
    const seen = {};
    let cells = pieces[pid].cells;
    for (let flip = 0; flip < 2; flip++) {
      for (let turn = 0; turn < 4; turn++) {
        const n = normal(cells);
        const k = key(n);
        if (!seen[k]) { seen[k] = true; out.push(n); }
        cells = cells.map(function (c) { return [c[1], -c[0]]; }); // a quarter turn clockwise
      }
      cells = cells.map(function (c) { return [c[0], -c[1]]; }); // a mirror image
    }
    orientationCache[pid] = out;
    return out;
  }
  function shape(pid) {
    return orientations(pid)[turned[pid] || 0];
  }
  // the cells the chosen piece would cover with its first cell on (r, c)
  function cover(pid, r, c) {
    const s = shape(pid);
    return s.map(function (x) { return [x[0] - s[0][0] + r, x[1] - s[0][1] + c]; });
  }
  function drawPiece(pid, px) {
    const s = shape(pid);
    const box = el("span", "piece");
    const rows = 1 + Math.max.apply(null, s.map(function (x) { return x[0]; }));
    const cols = 1 + Math.max.apply(null, s.map(function (x) { return x[1]; }));
    box.style.gridTemplateColumns = "repeat(" + cols + ", " + px + "px)";
    box.style.gridTemplateRows = "repeat(" + rows + ", " + px + "px)";
    const on = {};
    s.forEach(function (x) { on[x[0] * 10 + x[1]] = true; });
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const cell = el("div", on[r * 10 + c] ? "on" : "");
        if (on[r * 10 + c]) cell.style.background = pieces[pid].colour;
        box.appendChild(cell);
      }
    }
    return box;
  }

  // -- the panel ---------------------------------------------------------------------------------
  function status() {
    const box = document.getElementById("seat-status");
    if (choices.failed) {
      box.textContent = "The game stopped: " + choices.failed;
      box.className = "failed";
    } else if (choices.over) {
      box.textContent = "Game over. The record is saved in " + choices.record +
        " (projectl-sim view " + choices.record + " replays it).";
      box.className = "over";
    } else if (choices.yours) {
      box.textContent = "Your move, seat " + me + ": click a puzzle in a row to take it, a " +
        "piece below and then a cell of one of your puzzles to place it, or a button.";
    } else {
      box.textContent = "Seat " + me + " is to move.";
    }
    if (choices.message) say(choices.message, false);
  }

  function piecePicker() {
    const box = document.getElementById("seat-pieces");
    box.textContent = "";
    const ids = [];
    Object.keys(places).forEach(function (card) {
      places[card].forEach(function (p) { if (ids.indexOf(p.piece) < 0) ids.push(p.piece); });
    });
    if (!ids.length) {
      box.appendChild(el("span", "muted", choices.yours ? "no piece of yours fits a puzzle now" : ""));
      return;
    }
    box.appendChild(el("span", "muted", "place: "));
    ids.sort(function (a, b) { return Object.keys(pieces).indexOf(a) - Object.keys(pieces).indexOf(b); });
    ids.forEach(function (pid) {
      const b = el("button", "seat-piece" + (pid === selected ? " chosen" : ""));
      b.dataset.piece = pid;
      b.title = pid;
      b.appendChild(drawPiece(pid, 9));
      b.addEventListener("click", function () {
        selected = pid;
        piecePicker();
        say(pid + ": click the cell of one of your puzzles where its first square goes " +
          "(the highlight shows it); turn it with R, flip it with F", false);
      });
      box.appendChild(b);
    });
  }

  // a quarter turn clockwise, or the mirror image, of the chosen piece
  function turn(flip) {
    if (!selected) { say("choose a piece first", true); return; }
    const next = normal(shape(selected).map(function (x) {
      return flip ? [x[0], -x[1]] : [x[1], -x[0]];
    }));
    turned[selected] = orientations(selected).findIndex(function (o) { return key(o) === key(next); });
    piecePicker();
    say(selected + (flip ? " flipped" : " turned") + ": click the cell where its first square goes", false);
  }

  function buttons() {
    const box = document.getElementById("seat-buttons");
    box.textContent = "";
    const groups = {};
    (choices.buttons || []).forEach(function (b) {
      (groups[b.group] = groups[b.group] || []).push(b);
    });
    Object.keys(groups).forEach(function (g) {
      const line = el("div", "seat-row");
      line.appendChild(el("span", "seat-group", g.replace(/_/g, " ")));
      groups[g].forEach(function (b) {
        const button = el("button", "seat-action", b.text);
        button.dataset.group = g;
        button.addEventListener("click", function () { act(b.action); });
        line.appendChild(button);
      });
      box.appendChild(line);
    });
    const multi = document.getElementById("seat-multi");
    multi.textContent = "";
    Object.keys(choices.multi || {}).forEach(function (kind) {
      if (mode === kind) {
        const n = Object.keys(pending).length;
        const play = el("button", "seat-action", "play " + kind + " (" + n + " placed)");
        play.id = "seat-multi-play";
        play.addEventListener("click", function () {
          const list = Object.keys(pending).map(function (card) { return pending[card]; });
          if (!list.length) { say("place a piece into at least one puzzle first", true); return; }
          act({type: kind, placements: list});
        });
        const cancel = el("button", "", "cancel");
        cancel.addEventListener("click", function () { mode = null; pending = {}; buttons(); decorate(); });
        multi.appendChild(play);
        multi.appendChild(cancel);
      } else if (!mode) {
        const b = el("button", "seat-action", choices.multi[kind]);
        b.dataset.multi = kind;
        b.addEventListener("click", function () {
          mode = kind;
          pending = {};
          say(kind + ": place one piece into each puzzle you like, then play it", false);
          buttons();
        });
        multi.appendChild(b);
      }
    });
    document.getElementById("seat-insert-box").style.display = choices.inserts ? "" : "none";
  }

  // -- the board: the viewer's drawing, made clickable at the last step --------------------------
  function cellsOf(cardBox) {
    const grid = cardBox.querySelector(".grid5");
    return grid ? Array.prototype.slice.call(grid.children) : [];
  }
  function preview(cardBox, r, c, on) {
    cellsOf(cardBox).forEach(function (cell) { cell.classList.remove("seat-fit", "seat-miss"); });
    if (!on || !selected) return;
    const card = cardBox.dataset.puzzle;
    const cells = cover(selected, r, c);
    const fits = fitting(card, cells) !== null;
    cells.forEach(function (x) {
      if (x[0] < 0 || x[0] > 4 || x[1] < 0 || x[1] > 4) return;
      cellsOf(cardBox)[x[0] * 5 + x[1]].classList.add(fits ? "seat-fit" : "seat-miss");
    });
  }
  function fitting(card, cells) {
    const k = key(cells);
    const found = (places[card] || []).find(function (p) {
      return p.piece === selected && key(p.cells) === k;
    });
    return found || null;
  }
  function placeAt(card, r, c) {
    if (!selected) {
      say("choose one of your pieces first (above the board), then click a cell", true);
      return;
    }
    if (!places[card]) {
      say("no piece of yours fits " + card + " now", true);
      return;
    }
    const cells = cover(selected, r, c);
    const found = fitting(card, cells);
    if (!found) {
      say(selected + " does not fit on " + card + " there: turn it (R), flip it (F) or click " +
        "another cell", true);
      return;
    }
    const placement = {puzzle: card, piece: selected, cells: found.cells};
    if (mode) {
      pending[card] = placement;
      say(mode + ": " + Object.keys(pending).map(function (k) {
        return pending[k].piece + " on " + k;
      }).join(", "), false);
      buttons();
      return;
    }
    act(Object.assign({type: "place"}, placement));
  }

  function decorate() {
    const atEnd = Number(slider.value) === Number(slider.max);
    document.body.classList.toggle("seat-past", !atEnd);
    if (!atEnd || !choices.yours) return;
    const mine = board.querySelector('.players .panel.player[data-seat="' + me + '"]');
    if (mine) {
      mine.querySelectorAll(".card[data-puzzle]").forEach(function (cardBox) {
        const card = cardBox.dataset.puzzle;
        cellsOf(cardBox).forEach(function (cell, i) {
          const r = Math.floor(i / 5);
          const c = i % 5;
          cell.classList.add("seat-cell");
          cell.dataset.r = r;
          cell.dataset.c = c;
          if (pending[card] && key(pending[card].cells).split(";").indexOf(r + "," + c) >= 0) {
            cell.classList.add("seat-pending");
          }
          cell.addEventListener("click", function () { placeAt(card, r, c); });
          cell.addEventListener("mouseenter", function () { preview(cardBox, r, c, true); });
          cell.addEventListener("mouseleave", function () { preview(cardBox, r, c, false); });
        });
      });
    }
    const table = board.querySelector(".table");
    if (table && choices.takes && !mode) {
      table.querySelectorAll(".card[data-puzzle]").forEach(function (cardBox) {
        const take = choices.takes[cardBox.dataset.puzzle];
        if (!take) return;
        cardBox.classList.add("seat-take");
        cardBox.title = "take " + cardBox.dataset.puzzle;
        cardBox.addEventListener("click", function () { act(take); });
      });
    }
  }

  // -- wiring ------------------------------------------------------------------------------------
  document.getElementById("seat-rotate").addEventListener("click", function () { turn(false); });
  document.getElementById("seat-flip").addEventListener("click", function () { turn(true); });
  document.getElementById("seat-undo").addEventListener("click", function () {
    post("/undo").then(reload, function (e) { say(e.message, true); });
  });
  document.getElementById("seat-undo").disabled = !choices.undo;
  document.getElementById("seat-hint").disabled = !choices.yours;
  document.getElementById("seat-hint").addEventListener("click", function () {
    const box = document.getElementById("seat-hint-box");
    box.textContent = "thinking\u2026";
    post("/hint").then(function (h) {
      box.textContent = "";
      box.appendChild(el("div", "seat-hint-choice", "value would play: " + h.choice));
      if (h.alternatives.length) {
        const list = el("ol", "seat-hint-list");
        h.alternatives.forEach(function (a) {
          list.appendChild(el("li", a.chosen ? "chosen" : "", a.text + " \u00b7 " +
            a.value.toFixed(3) + (a.greedy ? " (greedy's choice, +" + a.prior + " prior)" : "")));
        });
        box.appendChild(el("div", "muted", "its candidates, valued (win chance + margin):"));
        box.appendChild(list);
      }
    }, function (e) { box.textContent = ""; say(e.message, true); });
  });
  document.getElementById("seat-position").addEventListener("click", function () {
    post("/position").then(function (a) { say("position saved to " + a.done, false); },
      function (e) { say(e.message, true); });
  });
  document.getElementById("seat-leave").addEventListener("click", function () {
    post("/leave").then(function () {
      say("the server has stopped; the record is in " + choices.record, false);
      document.body.classList.add("seat-busy");
    }, function (e) { say(e.message, true); });
  });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "r" || e.key === "R") turn(false);
    if (e.key === "f" || e.key === "F") turn(true);
  });
  new MutationObserver(decorate).observe(board, {childList: true});
  restore();
  status();
  piecePicker();
  buttons();
  decorate();
  window.seatReady = true;
})();
