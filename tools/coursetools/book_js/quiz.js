/* The concept quiz, checked in the page: no kernel, no network (labsupport.quiz writes its HTML;
   chapters/quiz-before.md and chapters/quiz-after.md show it).

   For every <form class="ls-quiz"> on the page:
   - shows its buttons (hidden in the HTML, so that a reader without JavaScript, or on paper, sees a
     plain form and the answers below it);
   - "Check answer" judges one question: its verdict goes to the question's role="status" line, which
     screen readers announce, and the explanations of the options chosen and of the right ones are
     copied under it from the answers list (<li id="<input id>-why">); each of those options is
     marked in words ("Your choice: right", ...), not by colour alone;
   - "Score all my answers" judges every question and announces the score; it keeps the score in this
     browser's localStorage (nothing leaves the browser) under the quiz's fingerprint and stage, and
     the page of the other stage, once scored, compares the two, belief by belief: the two pages ask
     parallel questions, question n of each testing the same misconception (data-misconception);
   - on a form with data-reveal="answered" (the page before the course), every answer is hidden
     until its question is answered and judged: then its answer is shown (under the question and in
     the answers list) and the question keeps its answer, so that the score measures what the
     learner thought before reading it;
   - changing an answer clears that question's verdict and the score; "Clear my answers" clears
     everything (and hides the answers again).
   The script does nothing on a page without a quiz. */
(function () {
  "use strict";

  var STORE_PREFIX = "labsupport-quiz";

  function all(root, selector) { return [].slice.call(root.querySelectorAll(selector)); }

  function storageKey(form, stage) {
    return STORE_PREFIX + ":" + form.getAttribute("data-version") + ":" + stage;
  }
  function loadScore(key) {
    try { var text = window.localStorage.getItem(key); return text ? JSON.parse(text) : null; }
    catch (e) { return null; }  // storage off (a privacy setting), or a value this script did not write
  }
  function saveScore(key, value) {
    try { window.localStorage.setItem(key, JSON.stringify(value)); return true; }
    catch (e) { return false; }
  }

  function listWords(words) {
    return words.length < 2 ? words.join("") : words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
  }
  function questionsPhrase(numbers) {
    return (numbers.length === 1 ? "question " : "questions ") + listWords(numbers);
  }

  // What the learner chose in one question, and whether it is exactly the right set.
  function judge(fieldset) {
    var chosen = [], right = [];
    all(fieldset, "input").forEach(function (input) {
      if (input.checked) { chosen.push(input.value); }
      if (input.getAttribute("data-correct") === "true") { right.push(input.value); }
    });
    var hits = chosen.filter(function (v) { return right.indexOf(v) >= 0; }).length;
    return {
      id: fieldset.getAttribute("data-question"), number: fieldset.getAttribute("data-number"),
      belief: fieldset.getAttribute("data-misconception"),
      kind: fieldset.getAttribute("data-kind"), chosen: chosen, right: right, hits: hits,
      answered: chosen.length > 0, correct: chosen.length === right.length && hits === right.length
    };
  }

  function verdictText(r) {
    var head = "Question " + r.number + ": ";
    if (!r.answered) { return head + "no answer chosen yet."; }
    if (r.correct) { return head + "right."; }
    if (r.kind === "multiple") {
      var wrong = r.chosen.length - r.hits;
      return head + "not right. It has " + r.right.length + " right options; you chose " + r.hits
        + " of them and " + wrong + " wrong " + (wrong === 1 ? "one" : "ones") + ".";
    }
    return head + "not right.";
  }

  function reveals(fieldset) { return fieldset.form && fieldset.form.getAttribute("data-reveal") === "answered"; }

  // The page before the course: show the question's answer, and keep the learner's choice.
  function reveal(fieldset) {
    var answer = document.getElementById(fieldset.id + "-answer");
    if (answer) { answer.hidden = false; }
    all(fieldset, "input").forEach(function (input) { input.disabled = true; });
    fieldset.setAttribute("data-kept", "");
  }
  function hideAnswers(form) {
    all(form, "fieldset.ls-quiz-question").forEach(function (fieldset) {
      var answer = document.getElementById(fieldset.id + "-answer");
      if (answer) { answer.hidden = true; }
      all(fieldset, "input").forEach(function (input) { input.disabled = false; });
      fieldset.removeAttribute("data-kept");
    });
  }

  function clearQuestion(fieldset) {
    fieldset.querySelector(".ls-quiz-verdict").textContent = "";
    fieldset.querySelector(".ls-quiz-feedback").textContent = "";
    all(fieldset, ".ls-quiz-option").forEach(function (option) {
      option.removeAttribute("data-mark");
      all(option, ".ls-quiz-mark").forEach(function (mark) { mark.parentNode.removeChild(mark); });
    });
  }

  // Judge one question, say so, mark its options and copy their explanations under it.
  function showQuestion(fieldset) {
    var r = judge(fieldset);
    clearQuestion(fieldset);
    fieldset.querySelector(".ls-quiz-verdict").textContent = verdictText(r);
    if (!r.answered) { return r; }
    var list = document.createElement("ul");
    list.className = "ls-quiz-explanations";
    all(fieldset, "input").forEach(function (input) {
      var right = input.getAttribute("data-correct") === "true";
      if (!input.checked && !right) { return; }
      var option = input.closest(".ls-quiz-option"), mark = document.createElement("span");
      mark.className = "ls-quiz-mark";
      mark.textContent = input.checked ? (right ? "Your choice: right" : "Your choice: wrong") : "Right answer";
      option.setAttribute("data-mark", input.checked && !right ? "wrong" : "right");
      option.querySelector("label").appendChild(mark);
      var why = document.getElementById(input.id + "-why");
      if (why) {
        var copy = why.cloneNode(true);
        copy.removeAttribute("id");
        list.appendChild(copy);
      }
    });
    var feedback = fieldset.querySelector(".ls-quiz-feedback");
    feedback.appendChild(list);
    if (reveals(fieldset)) {
      reveal(fieldset);
      var kept = document.createElement("p");
      kept.className = "ls-quiz-kept";
      kept.textContent = "Your answer is kept as you gave it: this quiz records what you thought before the course.";
      feedback.appendChild(kept);
    }
    return r;
  }

  function comparison(form, stage, results) {
    var other = form.getAttribute("data-other-stage");
    var earlier = loadScore(storageKey(form, other));
    if (!earlier) {
      return stage === "before" ? "" : " No score from the quiz before the course was found in this browser.";
    }
    var better = [], worse = [];
    results.forEach(function (r) {  // the other page asks another question about the same belief
      var then = earlier.beliefs && earlier.beliefs[r.belief];
      if (then === undefined) { return; }
      if (r.correct && !then) { better.push(r.number); }
      if (!r.correct && then) { worse.push(r.number); }
    });
    var when = earlier.at ? " (" + new Date(earlier.at).toLocaleDateString() + ")" : "";
    var text = " " + (other === "before" ? "Before the course" : "After the course") + when + " you scored "
      + earlier.score + " of " + earlier.total + ".";
    if (other === "before") {
      text += better.length ? " Right now and not then: " + questionsPhrase(better) + "." : "";
      text += worse.length ? " Right then and not now: " + questionsPhrase(worse) + "." : "";
    }
    return text;
  }

  function scoreAll(form) {
    var stage = form.getAttribute("data-stage");
    var results = all(form, "fieldset.ls-quiz-question").map(showQuestion);
    var score = results.filter(function (r) { return r.correct; }).length;
    var blank = results.filter(function (r) { return !r.answered; }).map(function (r) { return r.number; });
    var correct = {}, answers = {}, beliefs = {};
    results.forEach(function (r) { correct[r.id] = r.correct; answers[r.id] = r.chosen; beliefs[r.belief] = r.correct; });
    var text = "You scored " + score + " of " + results.length + ".";
    if (blank.length) { text += " Not answered: " + questionsPhrase(blank) + "."; }
    text += comparison(form, stage, results);
    var saved = saveScore(storageKey(form, stage), {
      score: score, total: results.length, correct: correct, answers: answers, beliefs: beliefs,
      at: new Date().toISOString()
    });
    if (saved && stage === "before") {
      text += " Your score is kept in this browser only, for the quiz at the end of the course to compare.";
    }
    form.querySelector(".ls-quiz-result").textContent = text;
    form.setAttribute("data-score", String(score));
  }

  function start(form) {
    all(form, ".ls-quiz-tools, .ls-quiz-actions").forEach(function (el) { el.hidden = false; });
    var answers = document.getElementById(form.id + "-answers");
    var note = answers && answers.querySelector(".ls-quiz-reveal-note");
    if (note) { note.hidden = false; }
    all(form, "fieldset.ls-quiz-question").forEach(function (fieldset) {
      fieldset.querySelector(".ls-quiz-check").addEventListener("click", function () { showQuestion(fieldset); });
      fieldset.addEventListener("change", function () {
        clearQuestion(fieldset);
        form.querySelector(".ls-quiz-result").textContent = "";  // the score no longer holds
        form.removeAttribute("data-score");
      });
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); scoreAll(form); });
    form.addEventListener("reset", function () {
      hideAnswers(form);
      all(form, "fieldset.ls-quiz-question").forEach(clearQuestion);
      form.querySelector(".ls-quiz-result").textContent = "";
      form.removeAttribute("data-score");
    });
    form.setAttribute("data-ready", "");
  }

  function startAll() { all(document, "form.ls-quiz").forEach(start); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", startAll); } else { startAll(); }
})();
