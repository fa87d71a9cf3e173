// Coming in: the form with a name and a password, to log in to a registered name, to play as a
// guest, or to register the name; and the page's side of it, which says hello with what it has
// (the resume token kept, the name, or the form's login). The password goes to the server once and
// is never kept; what the page keeps is the resume token the server hands out.

import { language, t } from "./i18n.js";

const MIN_PASSWORD = 8;
const CODES_FOR_PASSWORD = new Set(["name_registered", "bad_password", "too_many_attempts", "weak_password"]);

export class AccountForm {
  /**
   * `dialog` is the <dialog> holding the form; `onSubmit({how, name, password})` is called with
   * how "login", "guest" or "register" once the form's fields fit what the server takes ("Come
   * in" without a password is "guest").
   */
  constructor(dialog, { onSubmit }) {
    this.dialog = dialog;
    this.form = dialog.querySelector("form");
    this.name = dialog.querySelector("#name-input");
    this.password = dialog.querySelector("#password-input");
    this.error = dialog.querySelector("#name-error");
    this.onSubmit = onSubmit;
    this.busy = false;
    /** whether the form may be closed without an answer (someone is in already) */
    this.closable = false;
    this.cancelButton = dialog.querySelector("#form-cancel");
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this._submit(e.submitter?.value ?? "login");
    });
    // a newcomer needs a name; someone already in (registering, say) may close the form with Esc
    dialog.addEventListener("cancel", (e) => {
      if (!this.closable) e.preventDefault();
    });
    // a browser closes a modal dialog on a second Esc whatever its page says (and on a first one
    // before anything was typed): the newcomer's form opens again, as it was
    this.closing = false; // (this page closes it: the close event comes after, as a task of its own)
    dialog.addEventListener("close", () => {
      const ours = this.closing;
      this.closing = false;
      if (ours || this.closable) return;
      dialog.showModal();
      this.name.focus();
    });
    this.cancelButton.addEventListener("click", () => this.close());
  }

  _submit(how) {
    // Enter in a field of the register form registers (its first button, "Come in", is hidden)
    if (this.dialog.dataset.mode === "register") how = "register";
    const name = this.name.value.trim();
    const password = this.password.value;
    if (!name || !this.name.checkValidity()) {
      this.error.textContent = t("A name is 1 to 16 letters A to Z (no accents), digits, _ or -, starting with a letter.");
      this.name.focus();
      return;
    }
    // coming in without a password is coming in as a guest
    if (how === "login" && !password) how = "guest";
    if (how === "register" && !password) {
      this.error.textContent = t("Choose a password to register {name}.", { name });
      this.password.focus();
      return;
    }
    if (how === "register" && password.length < MIN_PASSWORD) {
      this.error.textContent = t("A password has at least {n} characters.", { n: MIN_PASSWORD });
      this.password.focus();
      return;
    }
    // the password leaves the field at once: from here on only the message to the server holds it
    this.password.value = "";
    this.error.textContent = how === "register" ? t("Registering {name}…", { name }) : t("Coming in…");
    this.busy = true;
    this.onSubmit({ how, name, password: how === "guest" ? null : password });
  }

  /**
   * Show the form, saying what went wrong (or nothing), with the name filled in; `code` "register"
   * asks to register the name (its button first); `closable` lets it be closed (Cancel, Esc);
   * `fresh` empties the name.
   */
  ask(problem, { name = "", code = "", closable = false, fresh = false } = {}) {
    this.busy = false;
    this.error.textContent = problem;
    if (fresh) this.name.value = "";
    if (!this.name.value) this.name.value = name ?? "";
    this.closable = closable;
    this.cancelButton.hidden = !closable;
    // registering from the header: Register is the form's first button, not "Come in"
    const registering = code === "register" && closable;
    this.dialog.dataset.mode = registering ? "register" : "login";
    this.dialog.querySelector("#login-btn").hidden = registering;
    this.dialog.querySelector("#guest-btn").hidden = registering;
    this.dialog.querySelector("#register-btn").classList.toggle("primary", registering);
    if (!this.dialog.open) this.dialog.showModal();
    (CODES_FOR_PASSWORD.has(code) || code === "register" ? this.password : this.name).focus();
  }

  /** Whether an error with `code` is one this form answers (a login or registration refused). */
  static answers(code) {
    return CODES_FOR_PASSWORD.has(code) || ["name_taken", "name_reserved", "bad_name", "banned", "kicked"].includes(code);
  }

  close() {
    this.busy = false;
    this.password.value = "";
    this.error.textContent = "";
    if (this.dialog.open) {
      this.closing = true; // (the page's own close: the form stays closed)
      this.dialog.close();
    }
  }
}

/** Who this page is to the server: what it says in `hello`, and what it keeps of the welcome. */
export class Identity {
  /**
   * `state` holds `name`, `token`, `registered`, `welcomed` and, while the server has not
   * answered them, `pending` (the form's {how, name, password}) and `registering` (the id of a
   * `register`); `saved` is the page's storage; `connection` the socket; `chat` the log.
   */
  constructor(dialog, { state, saved, send, newId, connection, chat }) {
    this.state = state;
    this.saved = saved;
    this.send = send;
    this.newId = newId;
    this.connection = connection;
    this.chat = chat;
    this.form = new AccountForm(dialog, { onSubmit: (entry) => this.submit(entry) });
  }

  /** Say hello on a new connection: the form's login, the kept token or name, or ask for a name. */
  hello() {
    const state = this.state;
    const pending = state.pending;
    const lang = language();
    if (pending) {
      // a login's password goes out once; a registration waits for the welcome to send its own
      if (pending.how !== "register") state.pending = null;
      if (pending.how === "login") this.send({ type: "hello", name: pending.name, password: pending.password, lang });
      else this.send({ type: "hello", name: pending.name, lang });
      return;
    }
    // another tab of this browser may have come back since, and every return hands out a new token
    state.token = this.saved.get("cafe.token") ?? state.token;
    state.name = this.saved.get("cafe.name") ?? state.name;
    if (state.token) this.send({ type: "hello", name: state.name || "guest", token: state.token, lang });
    else if (state.name) this.send({ type: "hello", name: state.name, lang });
    else this.ask("");
  }

  /** Keep what `welcome` hands out; a registration the form asked for goes out now. */
  welcomed(msg) {
    const state = this.state;
    state.name = msg.name;
    state.token = msg.token;
    state.registered = !!msg.registered;
    const pending = state.pending;
    if (pending?.how === "register" && !msg.registered) {
      state.pending = null;
      this.register(pending.password);
    } else if (!state.registering) this.form.close();
    if (msg.id && msg.id === state.registering) {
      state.registering = null;
      this.form.close();  // the server's notice says that the name is registered
    }
    this.saved.set("cafe.name", msg.name);
    this.saved.set("cafe.token", msg.token);
    this.connection.settled();
  }

  /** Answer an error about the name (a token or login refused): whether it was one. */
  refused(msg, id) {
    const state = this.state;
    if (msg.code === "bad_token") {
      state.token = null;
      this.saved.set("cafe.token", null);
      if (state.name) this.send({ type: "hello", name: state.name, lang: language() });
      else this.ask("");
      return true;
    }
    if (id && id === state.registering) {
      state.registering = null;
      this.ask(msg.message, "register");
      return true;
    }
    if (!state.welcomed && AccountForm.answers(msg.code)) {
      state.pending = null; // a refused registration's password is not kept for another try
      this.ask(msg.message, msg.code);
      return true;
    }
    return false;
  }

  register(password) {
    this.state.registering = this.newId("reg");
    this.send({ type: "register", password, id: this.state.registering });
  }

  /** Show the form, saying what went wrong; `code` "register" opens it to register; `fresh` with no name. */
  ask(problem, code = "", { fresh = false } = {}) {
    const closable = this.state.welcomed && code === "register";
    this.form.ask(problem, { name: fresh ? "" : this.state.name, code, closable, fresh });
  }

  /** What the form asks for: the same name again, a registration, or another name. */
  submit({ how, name, password }) {
    const state = this.state;
    const same = name.toLowerCase() === state.name?.toLowerCase();
    if (state.welcomed && how === "guest" && same) {
      this.form.close();
      return;
    }
    if (state.welcomed && how === "register") {
      // a guest registers the name played under (after a /nick when another name was typed)
      if (same) return this.register(password);
      state.pending = { how, name, password };
      this.send({ type: "nick", name, id: this.newId("ui") });
      return;
    }
    state.pending = { how, name, password };
    state.name = name;
    state.token = null;
    this.saved.set("cafe.token", null);
    const connection = this.connection;
    if (state.welcomed) {
      // another name on this page: a fresh connection says hello with it
      connection.close(t("changing name"));
      connection.connect();
    } else if (connection.isOpen()) this.hello();
    else connection.connect();
  }
}
