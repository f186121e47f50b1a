// The bare pi-tui app bench/tui.ts measures lembas's terminal UI against: the same widgets and
// nothing else. A header Text, a transcript Container (the user's prompt as a Text, the answer as
// a Markdown), an Editor and a one-line status bar Text, on TuiMainScreen over ProcessTerminal.
// Enter in the editor sends the text as one streamed chat completion to the model; every delta is
// appended to the answer's markdown with a render requested per chunk.
//
//   bun bench/tui-bare.ts --url http://127.0.0.1:PORT/v1 [--model test-model] [--ref test/test-model]
//                         [--prefill N] [--auto PROMPT] [--exit-after-stream]
//
// --prefill N: the transcript starts with an earlier prompt and a markdown answer of N lines.
// --auto PROMPT: send PROMPT as soon as the app has started, without the editor.
// --exit-after-stream: quit once the stream has ended. Ctrl-D on an empty editor quits.
// The model URL may also come from BARE_MODEL_URL.
import {
  Container,
  Editor,
  type EditorTheme,
  Markdown,
  type MarkdownTheme,
  matchesKey,
  ProcessTerminal,
  Text,
  TuiMainScreen,
} from "@earendil-works/pi-tui";
import { earlierAnswer } from "./fixtures/tui-text.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

const url = option("--url") ?? process.env.BARE_MODEL_URL;
if (!url) {
  process.stderr.write("tui-bare: --url or BARE_MODEL_URL is needed\n");
  process.exit(2);
}
const modelId = option("--model") ?? "test-model";
const ref = option("--ref") ?? `test/${modelId}`;
const prefill = Number(option("--prefill") ?? 0);
const auto = option("--auto");
const exitAfterStream = process.argv.includes("--exit-after-stream");

const bold = (s: string) => `\x1b[1m${s}\x1b[22m`;
const dim = (s: string) => `\x1b[2m${s}\x1b[22m`;
const italic = (s: string) => `\x1b[3m${s}\x1b[23m`;
const same = (s: string) => s;
const markdownTheme: MarkdownTheme = {
  heading: bold,
  link: same,
  linkUrl: dim,
  code: bold,
  codeBlock: same,
  codeBlockBorder: dim,
  quote: italic,
  quoteBorder: dim,
  hr: dim,
  listBullet: dim,
  bold,
  italic,
  strikethrough: same,
  underline: same,
};
const editorTheme: EditorTheme = {
  borderColor: dim,
  selectList: { selectedPrefix: bold, selectedText: bold, description: dim, scrollInfo: dim, noMatch: dim },
};

const terminal = new ProcessTerminal();
const tui = new TuiMainScreen(terminal);
const header = new Text(bold("bare pi-tui") + dim(` · ${process.cwd()}`), 1, 0);
const transcript = new Container();
const editor = new Editor(tui, editorTheme, { paddingX: 1 });
const status = new Text("", 1, 0);
const setStatus = (state: string) => status.setText(dim(`${ref} · ${state}`));
setStatus("ready");

if (prefill > 0) {
  transcript.addChild(new Text(bold("> x"), 1, 1));
  transcript.addChild(new Markdown(earlierAnswer(prefill), 1, 0, markdownTheme));
}
tui.addChild(header);
tui.addChild(transcript);
tui.addChild(editor);
tui.addChild(status);
tui.setFocus(editor);

let streaming = false;
function quit(code = 0): never {
  tui.stop();
  process.exit(code);
}

/** One streamed chat completion: each content delta is appended to `answer`, a render per chunk. */
async function send(prompt: string): Promise<void> {
  streaming = true;
  editor.disableSubmit = true;
  transcript.addChild(new Text(bold(`> ${prompt}`), 1, 1));
  const answer = new Markdown("", 1, 0, markdownTheme);
  transcript.addChild(answer);
  setStatus("streaming");
  tui.requestRender();
  let text = "";
  try {
    const res = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: modelId, stream: true, messages: [{ role: "user", content: prompt }] }),
    });
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const bytes of res.body) {
      buffer += decoder.decode(bytes, { stream: true });
      let nl = buffer.indexOf("\n");
      while (nl !== -1) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf("\n");
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") continue;
        const delta = (JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[] }).choices?.[0]?.delta?.content;
        if (!delta) continue;
        text += delta;
        answer.setText(text);
        tui.requestRender();
      }
    }
    setStatus("ready");
  } catch (error) {
    setStatus(`error: ${error instanceof Error ? error.message : String(error)}`);
  }
  streaming = false;
  editor.disableSubmit = false;
  tui.requestRender();
  if (exitAfterStream) setTimeout(() => quit(0), 50);
}

editor.onSubmit = (text) => {
  const prompt = text.trim();
  if (!prompt || streaming) return;
  editor.setText("");
  void send(prompt);
};
tui.addInputListener((data) => {
  if (matchesKey(data, "ctrl+c")) quit(130);
  if (matchesKey(data, "ctrl+d") && editor.getText() === "") quit(0);
  return undefined;
});

tui.start();
if (auto) void send(auto);
