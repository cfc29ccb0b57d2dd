// The Hearts web table. Plain JavaScript, no build step: the server holds the game and sends
// what this seat may know; this page draws it and sends the person's decisions.
"use strict";

const SUITS = { C: "♣", D: "♦", S: "♠", H: "♥" };
const SUIT_ORDER = "CDSH";
const RANKS = "23456789TJQKA";
const $ = (id) => document.getElementById(id);

let options = null;  // /api/options
let game = null;     // the latest state
const ADVANCED = "__advanced__";  // the seat menu's entry that shows the spec field
let speed = 600;     // ms between bot decisions
let timer = null;
let busy = false;
let selected = new Set();  // cards chosen for the pass
let focusIndex = 0;
let replay = null;   // {data, index}
let paused = false;  // a spectated game, paused

// ---------------------------------------------------------------- helpers
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function cardSort(a, b) {
  const sa = SUIT_ORDER.indexOf(a[1]), sb = SUIT_ORDER.indexOf(b[1]);
  return sa !== sb ? sa - sb : RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]);
}

function rankText(name) { return name[0] === "T" ? "10" : name[0]; }
function cardLabel(name) { return rankText(name) + SUITS[name[1]]; }

function cardEl(name, { tag = "div", small = false, cls = "" } = {}) {
  const red = name[1] === "H" || name[1] === "D";
  const node = el(tag, {
    class: `card ${red ? "red" : "black"} ${small ? "small" : ""} ${name[0] === "T" ? "ten" : ""} ${cls}`.trim(),
    "data-card": name,
    "aria-label": cardLabel(name),
  });
  node.append(el("span", { class: "rank", text: rankText(name) }), el("span", { class: "pip", text: SUITS[name[1]] }));
  return node;
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  let data;
  try { data = await response.json(); } catch { data = { error: `The server answered ${response.status}.` }; }
  if (!response.ok && !data.error) data.error = `The server answered ${response.status}.`;
  return data;
}

function show(screen) {
  for (const id of ["setup", "table-screen", "replay-screen"]) $(id).classList.toggle("hidden", id !== screen);
}

function stopTimer() { if (timer) { clearTimeout(timer); timer = null; } }

// ---------------------------------------------------------------- the new-game form
function presetPlayers() {
  const p = options.presets.find((x) => x.name === $("f-rules").value);
  return p ? p.num_players : 4;
}

function playerCount() {
  const typed = parseInt($("f-players").value, 10);
  return Number.isInteger(typed) && typed >= 3 && typed <= 8 ? typed : presetPlayers();
}

function renderSeatChoices() {
  const n = playerCount();
  const spectate = $("f-mode").value === "spectate";
  const box = $("f-seats");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  const names = seatNames(n, spectate ? null : 0);
  for (let p = 0; p < n; p++) {
    if (!spectate && p === 0) {
      box.append(el("div", { class: "seat-choice you" }, el("span", { text: "You" }), el("strong", { text: "seat 0" })));
      continue;
    }
    const sel = el("select", { "data-seat": p, "aria-label": `bot for ${names[p]}` });
    for (const b of options.bot_menu) sel.append(el("option", { value: b.name, text: b.label }));
    sel.append(el("option", { value: ADVANCED, text: "advanced: any spec…" }));
    const spec = el("input", {
      class: "advanced-spec hidden", list: "advanced-bots", "data-seat": p,
      "aria-label": `bot spec for ${names[p]}`, placeholder: "guard:base=ppo-tuned,penalty=25",
    });
    const preferred = before[box.querySelectorAll("select").length] || options.default_bot;
    sel.value = options.bots.includes(preferred) ? preferred : options.default_bot;
    sel.addEventListener("change", () => spec.classList.toggle("hidden", sel.value !== ADVANCED));
    box.append(el("label", { class: "seat-choice" }, el("span", { text: names[p] }), sel, spec));
  }
  document.querySelectorAll(".spectate-only").forEach((x) => x.classList.toggle("hidden", !spectate));
}

function seatNames(n, human) {  // the server's naming (narrate.seat_names), sent with the options
  const names = options.seat_names[String(n)];
  return names ? names[human === null ? "watch" : "play"] : Array.from({ length: n }, (_, p) => `Seat ${p}`);
}

function parseSettings(text) {
  const out = {};
  for (const raw of text.split(/\n|;/)) {
    const line = raw.trim();
    if (!line) continue;
    const i = line.indexOf("=");
    if (i <= 0) throw new Error(`Rule options are option=value, got "${line}".`);
    const key = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    try { out[key] = JSON.parse(value); } catch { out[key] = value; }
  }
  return out;
}

async function startGame(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  let settings;
  try { settings = parseSettings($("f-set").value); } catch (err) { $("setup-error").textContent = err.message; return; }
  const spectate = $("f-mode").value === "spectate";
  const body = {
    rules: $("f-rules").value,
    set: settings,
    bots: [...$("f-seats").querySelectorAll("select")].map(
      (s) => (s.value === ADVANCED ? s.parentElement.querySelector("input.advanced-spec").value.trim() : s.value)),
    spectate,
    seat: 0,
    show_hands: $("f-show").checked,
    single_deal: $("f-single").checked,
  };
  const players = parseInt($("f-players").value, 10);
  if (Number.isInteger(players)) body.players = players;
  const seed = parseInt($("f-seed").value, 10);
  if (Number.isInteger(seed)) body.seed = seed;
  speed = parseInt($("f-speed").value, 10);
  $("f-start").disabled = true;
  const state = await api("/api/games", body);
  $("f-start").disabled = false;
  if (state.error) { $("setup-error").textContent = state.error; return; }
  stopTimer();
  selected = new Set();
  focusIndex = 0;
  paused = false;
  openTable(state);
}

function openTable(state) {
  show("table-screen");
  window.scrollTo(0, 0);
  history.replaceState(null, "", `#game=${encodeURIComponent(state.id)}`);  // a reload comes back to this game
  receive(state);
}

// ---------------------------------------------------------------- the table
function receive(state) {
  if (state.error) { setPrompt(state.error, "error"); return; }
  if (game && game.id === state.id && state.version !== game.version) selected = new Set();
  game = state;
  render();
  schedule();
}

function schedule() {
  stopTimer();
  const s = game;
  if (!s || s.finished || (paused && s.mode === "spectate")) return;
  if (s.deal_over) {
    if (s.mode === "spectate") timer = setTimeout(() => advance(), Math.max(1500, speed * 4));
    return;
  }
  if (s.your_turn) return;
  const justTaken = s.trick.length === 0 && s.last_trick && s.phase === "playing";
  timer = setTimeout(() => advance(), justTaken ? Math.max(speed * 2, 700) : speed);
}

async function advance() {
  if (!game || busy) return;
  busy = true;
  const state = await api(`/api/games/${game.id}/advance`, { steps: 1 });
  busy = false;
  receive(state);
}

async function act(actions) {
  if (!game || busy) return;
  busy = true;
  const state = await api(`/api/games/${game.id}/act`, { seat: game.seat, actions });
  busy = false;
  if (state.error) {
    setPrompt(state.error, "error");
    const hand = $("hand");
    hand.classList.remove("shake");
    void hand.offsetWidth;
    hand.classList.add("shake");
    return;
  }
  receive(state);
}

function setPrompt(text, kind = "") {
  const p = $("prompt");
  p.textContent = text;
  p.className = `prompt ${kind}`;
}

function seatPosition(relative, n) {
  const angle = Math.PI / 2 + (relative * 2 * Math.PI) / n;  // 0: bottom, then clockwise on screen
  const narrow = window.innerWidth <= 820;  // a phone: the table is tall and thin
  return { x: 50 + (narrow ? 31 : 37) * Math.cos(angle), y: 50 + 39 * Math.sin(angle), angle, tx: narrow ? 8 : 13 };
}

function render() {
  const s = game;
  const n = s.num_players;
  const bottom = s.seat === null ? 0 : s.seat;
  const felt = $("felt");
  felt.replaceChildren();
  felt.classList.toggle("spectate", s.mode === "spectate" && s.show_hands);
  // seats
  for (let p = 0; p < n; p++) {
    const r = (p - bottom + n) % n;
    const pos = seatPosition(r, n);
    const classes = ["seat"];
    if (s.to_move === p) classes.push("to-move");
    if (p === s.seat) classes.push("me");
    if (pos.y < 30) classes.push("top");
    const badges = el("div", { class: "badges" });
    if (s.dealer === p) badges.append(el("span", { class: "badge dealer", title: "dealer", text: "D" }));
    if (s.pass_through[p]) badges.append(el("span", { class: "badge", title: "passes through", text: "⇢" }));
    if (s.winners && s.winners.includes(p)) badges.append(el("span", { class: "badge win", text: "winner" }));
    const box = el("div", { class: classes.join(" "), style: `left:${pos.x}%;top:${pos.y}%`, "data-seat": p },
      el("div", { class: "name" }, el("strong", { text: s.names[p] }), badges),
      el("div", { class: "label", text: s.labels[p] === "you" ? `seat ${p}` : s.labels[p] }),
      el("div", { class: "stats" },
        el("span", { title: "points taken this deal", text: `♥ ${s.points_taken[p]}` }),
        el("span", { title: "tricks", text: `tricks ${s.tricks_won[p]}` }),
        el("span", { title: "total", text: `total ${s.totals[p]}` })),
    );
    const cards = s.hands[String(p)];
    if (p !== s.seat) {
      if (cards) {
        const row = el("div", { class: "mini-hand" });
        for (const c of [...cards].sort(cardSort)) row.append(cardEl(c, { small: true }));
        box.append(row);
      } else if (s.hand_counts[p]) {
        box.append(el("div", { class: "backs", title: `${s.hand_counts[p]} cards` },
          ...Array.from({ length: Math.min(s.hand_counts[p], 13) }, () => el("span", { class: "back" })),
          el("span", { class: "count", text: String(s.hand_counts[p]) })));
      }
    }
    felt.append(box);
  }
  // the trick in the middle
  const centre = el("div", { class: "trick" });
  let plays = s.trick, winner = null, caption = "";
  if (plays.length === 0 && s.last_trick && (s.phase === "playing" || s.phase === "done" || s.phase === "moon_choice")) {
    plays = s.last_trick.plays;
    winner = s.last_trick.winner;
    const pts = s.last_trick.points;
    caption = `${s.names[winner]} ${s.names[winner] === "You" ? "take" : "takes"} trick ${s.last_trick.number}` +
      ` (${pts} point${pts === 1 ? "" : "s"})`;
    centre.classList.add("taken");
  }
  for (const play of plays) {
    const r = (play.seat - bottom + n) % n;
    const pos = seatPosition(r, n);
    const x = 50 + pos.tx * Math.cos(pos.angle), y = 50 + 14 * Math.sin(pos.angle);
    const c = cardEl(play.card, { cls: play.seat === winner ? "winner" : "" });
    c.style.left = `${x}%`;
    c.style.top = `${y}%`;
    c.title = `${s.names[play.seat]}: ${cardLabel(play.card)}`;
    centre.append(c);
  }
  felt.append(centre);
  const status = [];
  status.push(el("span", { class: s.hearts_broken ? "broken" : "", text: s.hearts_broken ? "♥ broken" : "♥ not broken" }));
  if (s.phase === "playing") status.push(el("span", { text: `trick ${Math.min(s.trick_number, s.num_tricks)}/${s.num_tricks}` }));
  $("tablebar").replaceChildren(...status, caption ? el("span", { class: "caption", text: caption }) : "");
  renderPrompt();
  renderDecision();
  renderHand();
  renderInfo();
  renderScores();
  renderLog($("log"), s.log);
}

function renderPrompt() {
  const s = game;
  if (s.finished) {
    const w = s.winners ? s.winners.map((p) => s.names[p]).join(", ") : "";
    const scores = s.deal_scores ? " Deal scores: " + s.deal_scores.map((x, p) => `${s.names[p]} ${x >= 0 ? "+" : ""}${x}`).join(" · ") : "";
    setPrompt(s.single_deal ? `The deal is over.${scores}` : `Game over: ${w} ${s.winners && s.winners.length === 1 && w !== "You" ? "wins" : "win"}.`, "done");
  } else if (s.deal_over) {
    const scores = s.deal_scores ? s.deal_scores.map((x, p) => `${s.names[p]} ${x >= 0 ? "+" : ""}${x}`).join(" · ") : "";
    setPrompt(scores ? `Deal over: ${scores}` : "The deal was void: it is dealt again.", "done");
  }
  else if (s.your_turn) {
    const d = s.decision;
    if (d.kind === "pass") setPrompt(`${d.prompt}: choose ${d.count} card${d.count === 1 ? "" : "s"}, then confirm.`, "turn");
    else if (d.kind === "play") setPrompt(s.trick.length ? "Your turn: follow with a card." : "Your lead: play a card.", "turn");
    else setPrompt(d.title, "turn");
  } else if (s.to_move !== null) setPrompt(`${s.names[s.to_move]} ${s.phase === "passing" ? "is passing" : "is thinking"}…`);
  else setPrompt("");
}

function renderDecision() {
  const s = game;
  const box = $("decision");
  box.replaceChildren();
  if (s.finished) {
    const links = el("div", { class: "buttons" });
    links.append(el("a", { class: "button primary", href: `/api/games/${s.id}/record`, download: s.record_file || "hearts-game.json", text: "Download the record" }));
    links.append(el("button", { type: "button", onclick: () => replayGame(), text: "Replay this game" }));
    links.append(el("button", { type: "button", onclick: () => { stopTimer(); show("setup"); }, text: "New game" }));
    box.append(links);
    if (s.record_error) box.append(el("p", { class: "error", text: s.record_error }));
    return;
  }
  if (s.deal_over) {
    const b = el("button", { class: "primary", type: "button", id: "next-deal", onclick: () => advance(), text: "Next deal (N)" });
    box.append(el("div", { class: "buttons" }, b));
    if (s.mode === "play") setTimeout(() => b.focus(), 0);
    return;
  }
  if (s.mode === "spectate") {
    const b = el("button", { type: "button", id: "pause", text: paused ? "Resume" : "Pause" });
    b.addEventListener("click", () => {
      paused = !paused;
      b.textContent = paused ? "Resume" : "Pause";
      if (paused) stopTimer(); else schedule();
    });
    box.append(el("div", { class: "buttons" }, b));
    return;
  }
  if (!s.your_turn) return;
  const d = s.decision;
  if (d.kind === "menu") {
    const row = el("div", { class: "buttons menu" });
    d.choices.forEach((c, i) => row.append(el("button", {
      type: "button", class: i === 0 ? "primary" : "", "data-action": c.action,
      onclick: () => act([c.action]), text: `${i + 1}. ${c.text}`,
    })));
    box.append(row);
  } else if (d.kind === "pass") {
    const ready = selected.size === d.count;
    box.append(el("div", { class: "buttons" }, el("button", {
      type: "button", class: "primary", id: "confirm-pass", disabled: !ready,
      onclick: () => act([...selected].sort(cardSort)),
      text: ready ? `Pass ${[...selected].sort(cardSort).map(cardLabel).join(" ")} (P)` : `Pass: ${selected.size} of ${d.count} chosen`,
    })));
  }
}

function renderHand() {
  const s = game;
  const box = $("hand");
  const hadFocus = box.contains(document.activeElement);
  box.replaceChildren();
  document.querySelector(".keys").classList.toggle("hidden", s.seat === null);
  if (s.seat === null) { box.classList.add("hidden"); return; }
  box.classList.remove("hidden");
  const cards = [...(s.hands[String(s.seat)] || [])].sort(cardSort);
  const d = s.your_turn ? s.decision : null;
  const legal = new Set(d && d.legal ? d.legal : []);
  cards.forEach((c, i) => {
    const classes = [];
    if (d && d.kind === "play") classes.push(legal.has(c) ? "legal" : "illegal");
    if (d && d.kind === "pass") classes.push("legal");
    if (selected.has(c)) classes.push("selected");
    const b = cardEl(c, { tag: "button", cls: classes.join(" ") });
    b.type = "button";
    b.tabIndex = i === focusIndex ? 0 : -1;
    b.addEventListener("click", () => clickCard(c, i));
    b.addEventListener("focus", () => { focusIndex = i; });
    box.append(b);
  });
  if (focusIndex >= cards.length) focusIndex = Math.max(0, cards.length - 1);
  const own = s.own_pass;
  if (own && s.phase !== "passing" && (own.passed.length || own.received.length)) {
    const note = el("div", { class: "pass-note" });
    if (own.passed.length) note.append(el("span", { text: `passed ${own.passed.map((x) => cardLabel(x.card)).join(" ")}` }));
    if (own.received.length) note.append(el("span", { text: `received ${own.received.map((x) => cardLabel(x.card)).join(" ")}` }));
    if (s.trick_number <= 1) box.append(note);
  }
  if (hadFocus || (d && !busy)) {
    const target = box.querySelectorAll("button.card")[focusIndex];
    if (target && d && d.kind !== "menu") target.focus({ preventScroll: true });
  }
}

function clickCard(card, index) {
  focusIndex = index;
  const s = game;
  if (!s.your_turn) { setPrompt("Wait for your turn.", "error"); return; }
  const d = s.decision;
  if (d.kind === "pass") {
    if (selected.has(card)) selected.delete(card);
    else if (selected.size < d.count) selected.add(card);
    else { setPrompt(`You pass ${d.count} card${d.count === 1 ? "" : "s"}: unselect one first.`, "error"); return; }
    renderDecision();
    renderHand();
    return;
  }
  if (d.kind === "play") act([card]);
  else setPrompt(`${d.title} Choose with the buttons.`, "error");
}

function renderInfo() {
  const s = game;
  const parts = [
    ["Rules", s.rules_label],
    ["Game", s.single_deal ? "one deal" : `match to ${s.threshold}`],
    ["Deal", `${s.deal_number} · ${s.pass_text}`],
    ["Seed", s.seed === null ? "shown when the match ends" : String(s.seed)],
  ];
  $("info").replaceChildren(el("dl", {}, ...parts.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])));
}

function renderScores() {
  const s = game;
  const table = el("table", { class: "scores" });
  table.append(el("thead", {}, el("tr", {}, el("th", { text: "" }), ...s.names.map((x) => el("th", { text: x })))));
  const body = el("tbody");
  for (const h of s.history) {
    body.append(el("tr", { class: h.label === "(void)" ? "void" : "" }, el("th", { text: h.label + (h.reset ? " *" : "") }),
      ...h.scores.map((x) => el("td", { text: String(x) }))));
  }
  body.append(el("tr", { class: "total" }, el("th", { text: "Total" }), ...s.totals.map((x) => el("td", { text: String(x) }))));
  table.append(body);
  $("scores").replaceChildren(table);
}

function renderLog(list, lines) {
  list.replaceChildren();
  for (const line of lines) {
    if (!line.trim()) continue;
    const cls = line.startsWith("──") ? "trick-head" : line.startsWith("═") ? "deal-head" : line.includes("→") ? "taken" : "";
    list.append(el("li", { class: cls, text: line.replace(/^[─═]+\s*|\s*[─═]+$/g, "").replace(/ ── /, " · ") }));
  }
  list.scrollTop = list.scrollHeight;
}

// ---------------------------------------------------------------- keyboard
document.addEventListener("keydown", (e) => {
  if (e.target && ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
  if (!$("replay-view").classList.contains("hidden") && !$("replay-screen").classList.contains("hidden")) {
    replayKey(e);
    return;
  }
  if (!game || $("table-screen").classList.contains("hidden")) return;
  const s = game;
  const cards = [...$("hand").querySelectorAll("button.card")];
  if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
    if (!cards.length) return;
    focusIndex = (focusIndex + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
    cards.forEach((c, i) => { c.tabIndex = i === focusIndex ? 0 : -1; });
    cards[focusIndex].focus();
    e.preventDefault();
  } else if ((e.key === "n" || e.key === "N") && s.deal_over && !s.finished) {
    advance();
  } else if (/^[1-9]$/.test(e.key) && s.your_turn && s.decision.kind === "menu") {
    const c = s.decision.choices[parseInt(e.key, 10) - 1];
    if (c) act([c.action]);
  } else if ((e.key === "p" || e.key === "P") && s.your_turn && s.decision.kind === "pass" && selected.size === s.decision.count) {
    act([...selected].sort(cardSort));
  }
});

// ---------------------------------------------------------------- replays
async function openReplay() {
  stopTimer();
  show("replay-screen");
  $("replay-pick").classList.remove("hidden");
  $("replay-view").classList.add("hidden");
  $("replay-error").textContent = "";
  const data = await api("/api/records");
  const list = $("r-list");
  list.replaceChildren();
  if (data.error) { $("replay-error").textContent = data.error; return; }
  if (!data.records.length) list.append(el("li", { class: "hint", text: "No records yet: finish a game first." }));
  for (const r of data.records) {
    list.append(el("li", {}, el("button", { type: "button", class: "link", onclick: () => loadReplay(`/api/records/${encodeURIComponent(r.name)}`), text: r.name })));
  }
}

async function replayGame() {
  if (!game) return;
  stopTimer();
  show("replay-screen");
  const record = await api(`/api/games/${game.id}/record`);
  if (record.error) { $("replay-error").textContent = record.error; return; }
  startReplay(await api("/api/replay", record));
}

async function loadReplay(url, body) {
  $("replay-error").textContent = "";
  startReplay(await api(url, body));
}

function startReplay(data) {
  if (data.error) {
    show("replay-screen");
    $("replay-pick").classList.remove("hidden");
    $("replay-view").classList.add("hidden");
    $("replay-error").textContent = data.error;
    return;
  }
  replay = { data, index: 0 };
  $("replay-pick").classList.add("hidden");
  $("replay-view").classList.remove("hidden");
  $("r-slider").max = String(data.frames.length - 1);
  renderReplay();
}

function replayGo(index) {
  if (!replay) return;
  replay.index = Math.max(0, Math.min(replay.data.frames.length - 1, index));
  renderReplay();
}

function replayTrick(direction) {
  const frames = replay.data.frames;
  let i = replay.index + direction;
  while (i > 0 && i < frames.length - 1 && !frames[i].trick_end) i += direction;
  replayGo(i);
}

function replayKey(e) {
  const keys = { ArrowRight: () => replayGo(replay.index + 1), ArrowLeft: () => replayGo(replay.index - 1),
    PageDown: () => replayTrick(1), " ": () => replayTrick(1), PageUp: () => replayTrick(-1),
    Home: () => replayGo(0), End: () => replayGo(1e9) };
  if (replay && keys[e.key]) { keys[e.key](); e.preventDefault(); }
}

function renderReplay() {
  const { data, index } = replay;
  const f = data.frames[index];
  const n = data.num_players;
  const felt = $("r-felt");
  felt.replaceChildren();
  for (let p = 0; p < n; p++) {
    const pos = seatPosition(p, n);
    const row = el("div", { class: "mini-hand" });
    for (const c of f.hands[p]) row.append(cardEl(c, { small: true }));
    felt.append(el("div", { class: `seat${pos.y < 30 ? " top" : ""}`, style: `left:${pos.x}%;top:${pos.y}%`, "data-seat": p },
      el("div", { class: "name" }, el("strong", { text: data.names[p] }),
        el("div", { class: "badges" }, f.dealer === p ? el("span", { class: "badge dealer", text: "D" }) : null)),
      el("div", { class: "stats" }, el("span", { text: `♥ ${f.points_taken[p]}` }), el("span", { text: `total ${f.totals[p]}` })),
      row));
  }
  const centre = el("div", { class: "trick" });
  for (const play of f.trick) {
    const pos = seatPosition(play.seat, n);
    const c = cardEl(play.card, { cls: play.seat === f.winner ? "winner" : "" });
    c.style.left = `${50 + pos.tx * Math.cos(pos.angle)}%`;
    c.style.top = `${50 + 14 * Math.sin(pos.angle)}%`;
    centre.append(c);
  }
  felt.append(centre);
  $("r-tablebar").replaceChildren(
    el("span", { text: `deal ${f.deal_number}` }),
    el("span", { class: f.hearts_broken ? "broken" : "", text: f.hearts_broken ? "♥ broken" : "♥ not broken" }),
    f.kitty.length ? el("span", { text: `kitty ${f.kitty.map(cardLabel).join(" ")}` }) : "");
  $("r-pos").textContent = `step ${index + 1} of ${data.frames.length}`;
  $("r-slider").value = String(index);
  $("r-info").replaceChildren(el("dl", {}, el("dt", { text: "Record" }), el("dd", { text: data.status }),
    el("dt", { text: "Deal" }), el("dd", { text: String(f.deal_number) }),
    el("dt", { text: "Phase" }), el("dd", { text: f.phase.replace("_", " ") })));
  renderLog($("r-log"), f.lines);
}

// ---------------------------------------------------------------- start
async function init() {
  options = await api("/api/options");
  if (options.error) { $("setup-error").textContent = options.error; return; }
  const known = el("datalist", { id: "advanced-bots" });
  for (const b of options.advanced_bots) known.append(el("option", { value: b }));
  document.body.append(known);
  const sel = $("f-rules");
  for (const p of options.presets) sel.append(el("option", { value: p.name, text: p.name }));
  sel.value = "standard";
  const desc = () => {
    const p = options.presets.find((x) => x.name === sel.value);
    $("f-rules-desc").textContent = p ? p.description : "";
    $("f-players").placeholder = String(presetPlayers());
  };
  desc();
  sel.addEventListener("change", () => { desc(); renderSeatChoices(); });
  $("f-players").addEventListener("input", renderSeatChoices);
  $("f-mode").addEventListener("change", renderSeatChoices);
  renderSeatChoices();
  $("setup-form").addEventListener("submit", startGame);
  $("nav-new").addEventListener("click", () => { stopTimer(); show("setup"); history.replaceState(null, "", location.pathname); });
  $("nav-replay").addEventListener("click", openReplay);
  $("r-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    let record;
    try { record = JSON.parse(await file.text()); } catch { $("replay-error").textContent = `${file.name} is not JSON.`; return; }
    loadReplay("/api/replay", record);
  });
  $("r-first").addEventListener("click", () => replayGo(0));
  $("r-prev").addEventListener("click", () => replayGo(replay.index - 1));
  $("r-next").addEventListener("click", () => replayGo(replay.index + 1));
  $("r-prevtrick").addEventListener("click", () => replayTrick(-1));
  $("r-nexttrick").addEventListener("click", () => replayTrick(1));
  $("r-last").addEventListener("click", () => replayGo(1e9));
  $("r-slider").addEventListener("input", (e) => replayGo(parseInt(e.target.value, 10)));
  const resume = /^#game=(.+)$/.exec(location.hash);
  if (resume) {
    const state = await api(`/api/games/${resume[1]}`);
    if (state.error) { history.replaceState(null, "", location.pathname); $("setup-error").textContent = state.error; }
    else openTable(state);
  }
}

init();
