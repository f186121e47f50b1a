/**
 * The one door to the terminal UI library (@earendil-works/pi-tui, pinned): every other file of
 * src/tui imports what it draws with from here, so that the library can be replaced in one place.
 */
export {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  type Component,
  Container,
  CURSOR_MARKER,
  Editor,
  type EditorTheme,
  type Focusable,
  Input,
  fuzzyFilter,
  Key,
  Markdown,
  type MarkdownTheme,
  matchesKey,
  ProcessTerminal,
  renderFakeCursor,
  type SelectItem,
  SelectList,
  type SelectListTheme,
  type Terminal,
  Text,
  type TUI,
  TuiMainScreen,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@earendil-works/pi-tui";
