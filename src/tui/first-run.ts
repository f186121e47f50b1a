import { errorMessage } from "../errors.ts";
import type { CommandHost } from "./command-host.ts";
import { type CheckedConnection, connectionForm, saveConnection } from "./connection-form.ts";
import type { Form } from "./form.ts";
import { type Component, type Focusable, matchesKey, SelectList, truncateToWidth } from "./kit.ts";
import { loginForm } from "./login-form.ts";
import type { NoModel } from "./no-model.ts";
import { Picker } from "./panel.ts";
import { selectListTheme } from "./theme.ts";

type Way = "login" | "connection" | "quit";

/**
 * The first run: no model to talk to. The screen says what was looked for and offers the ways
 * forward (log in to an instance, add a connection); once one worked the engine is made again
 * from what was written. Resolves true then, false when the person quits.
 */
export function firstRun(app: CommandHost, found: NoModel): Promise<boolean> {
  return new Promise((resolve) => {
    const screen = new FirstRunScreen(app, found, (ready) => {
      close();
      app.status.note = null;
      app.render();
      resolve(ready);
    });
    app.status.note = "no model yet: log in or add a connection above";
    const close = app.present(screen);
  });
}

class FirstRunScreen implements Component, Focusable {
  focused = false;
  private readonly menu: SelectList;
  private body: Component;
  private readonly login: Form;
  private readonly connection: Form;
  private saving = false;

  constructor(
    private readonly app: CommandHost,
    private readonly found: NoModel,
    private readonly finish: (ready: boolean) => void,
  ) {
    this.menu = new SelectList(
      [
        { value: "login", label: "Log in to a LLeMbas instance", description: "its URL and a device token" },
        { value: "connection", label: "Add an OpenAI-compatible connection", description: "a base URL, an API key if needed, a model" },
        { value: "quit", label: "Quit" },
      ],
      3,
      selectListTheme(app.theme),
      { minPrimaryColumnWidth: 40 },
    );
    this.menu.onSelect = (item) => this.choose(item.value as Way);
    this.menu.onCancel = () => this.finish(false);
    this.body = this.menu;
    const back = () => this.show(this.menu);
    this.login = loginForm(app, (lines) => this.ready(lines), back);
    this.connection = connectionForm(app, (checked) => this.pickModel(checked), back);
  }

  private choose(way: Way): void {
    if (way === "quit") return this.finish(false);
    this.show(way === "login" ? this.login : this.connection);
  }

  private show(body: Component): void {
    this.body = body;
    this.app.render();
  }

  private pickModel(checked: CheckedConnection): void {
    const items = checked.models.map((m) => ({ value: m.id, label: m.id, ...(m.contextLength ? { description: `${m.contextLength} tokens of context` } : {}) }));
    const picker = new Picker<string>(`The models of ${checked.connection.base_url}: pick one`, items, this.app.theme, (id) => {
      if (id === null) return this.show(this.connection);
      void this.save(checked, id);
    });
    this.show(picker);
  }

  private async save(checked: CheckedConnection, id: string): Promise<void> {
    if (this.saving) return;
    this.saving = true;
    try {
      const ref = saveConnection(this.app.runtime.ctx.paths.configFile, checked, id);
      await this.ready([`added the connection ${checked.name} (${checked.connection.base_url}) to ${this.found.configFile}; model: ${ref}`]);
    } catch (error) {
      this.app.transcript.line(errorMessage(error), "error");
      this.show(this.connection);
    } finally {
      this.saving = false;
    }
  }

  /** A way forward worked: what it did is said, and the engine is made again from it. */
  private async ready(lines: readonly string[]): Promise<void> {
    for (const line of lines) this.app.transcript.line(line);
    await this.app.runtime.reload();
    this.finish(true);
  }

  handleInput(data: string): void {
    if (this.body === this.menu && (matchesKey(data, "ctrl+c") || matchesKey(data, "ctrl+d"))) return this.finish(false);
    this.body.handleInput?.(data);
    this.app.render();
  }

  render(width: number): readonly string[] {
    const t = this.app.theme;
    if (isFocusable(this.body)) this.body.focused = this.focused;
    const ports = this.found.ports.join(", ");
    const head = [
      "",
      t.bold("lembas has no model to talk to. It looked for one:"),
      `  config.yaml (${this.found.configFile}): no connection`,
      "  logins to a LLeMbas instance: none",
      `  a local model server on 127.0.0.1, ports ${ports}: none answered`,
    ];
    const hint = this.body === this.menu ? [t.dim("  ↑↓ Enter to choose · Esc quits")] : [];
    return [...head.map((line) => truncateToWidth(line, width)), ...this.body.render(width), ...hint];
  }

  invalidate(): void {
    this.menu.invalidate();
    this.login.invalidate();
    this.connection.invalidate();
  }
}

function isFocusable(component: Component): component is Component & Focusable {
  return "focused" in component;
}
