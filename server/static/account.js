// Coming in: the form with a name and a password, to log in to a registered name, to play as a
// guest, or to register the name. The password goes to the server once and is never kept; what
// the page keeps is the resume token the server hands out.

import { t } from "./i18n.js";

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
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this._submit(e.submitter?.value ?? "login");
    });
    dialog.addEventListener("cancel", (e) => e.preventDefault());
  }

  _submit(how) {
    const name = this.name.value.trim();
    const password = this.password.value;
    if (!name || !this.name.checkValidity()) {
      this.error.textContent = t("A name is 1 to 16 letters, digits, _ or -, starting with a letter.");
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

  /** Show the form, saying what went wrong (or nothing), with the name filled in. */
  ask(problem, { name = "", code = "" } = {}) {
    this.busy = false;
    this.error.textContent = problem;
    if (!this.name.value) this.name.value = name ?? "";
    if (!this.dialog.open) this.dialog.showModal();
    (CODES_FOR_PASSWORD.has(code) || code === "register" ? this.password : this.name).focus();
  }

  /** Whether an error with `code` is one this form answers (a login or registration refused). */
  static answers(code) {
    return CODES_FOR_PASSWORD.has(code) || code === "name_taken" || code === "bad_name";
  }

  close() {
    this.busy = false;
    this.password.value = "";
    this.error.textContent = "";
    if (this.dialog.open) this.dialog.close();
  }
}
