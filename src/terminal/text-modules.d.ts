// The rc wrappers are imported as text (`with { type: "text" }`), like the tools' .txt files.
declare module "*.sh" {
  const text: string;
  export = text;
}
declare module "*.zsh" {
  const text: string;
  export = text;
}
declare module "*.fish" {
  const text: string;
  export = text;
}
