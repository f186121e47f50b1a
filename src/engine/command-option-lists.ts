import { type OptionList, optionLists } from "./command-options.ts";

/**
 * The options an "always" key covers, for the programs that have options running another program
 * or writing where they say: any other option of theirs asks (see command-options.ts for how a
 * list is written). Left out on purpose: git's -u/--upload-pack, --receive-pack, --exec, --template,
 * -c/--config, --ext-diff, --textconv, -O/--open-files-in-pager, rebase's -x/-i, gpg signing;
 * man's -P/-H/-p; wget's -e/--use-askpass/--config; curl's -K and
 * traces; sort's --compress-program; make's -f/-C/-I/--eval; fd's -x/-X; npm's --prefix,
 * --script-shell, --node-options, -g. Options whose value is a path written to (`-o=w`) are
 * covered only when that path is in the project.
 */
export type Listed = { options: OptionList; untilOperand?: boolean };

const DIFF =
  "-p -u --patch -s --no-patch -U= --unified= --raw --patch-with-raw --patch-with-stat --stat?= --numstat --shortstat --dirstat?= " +
  "--summary --name-only --name-status -z --color?= --no-color --word-diff?= --word-diff-regex= --color-words?= --color-moved?= " +
  "--no-renames --find-renames?= -M?= -C?= --find-copies?= --find-copies-harder -B?= -D --irreversible-delete -l= --diff-filter= -R " +
  "--relative?= --no-relative -a --text --ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines " +
  "--ignore-cr-at-eol -W --function-context --no-ext-diff --no-textconv --ignore-submodules?= --src-prefix= --dst-prefix= " +
  "--no-prefix --abbrev?= --full-index --binary --minimal --patience --histogram --diff-algorithm= --indent-heuristic " +
  "--no-indent-heuristic --exit-code --quiet --check --compact-summary --stat-width= --stat-count= --stat-name-width= -G= -S= " +
  "--pickaxe-all --pickaxe-regex --merge-base";

const LOG =
  "--oneline --graph --decorate?= --no-decorate --all --branches?= --tags?= --remotes?= --glob= -n= --max-count= --skip= " +
  "--since= --after= --until= --before= --author= --committer= --grep= --all-match --invert-grep -i --regexp-ignore-case -E " +
  "--extended-regexp -F --fixed-strings -P --perl-regexp --merges --no-merges --min-parents= --max-parents= --first-parent " +
  "--reverse --format= --pretty?= --date= --relative-date --follow -L= --full-diff --no-walk?= --topo-order --date-order " +
  "--author-date-order --boundary --left-right --cherry-pick --cherry-mark --cherry --ancestry-path --simplify-by-decoration " +
  "--source --use-mailmap --mailmap --notes?= --no-notes --abbrev-commit --no-abbrev-commit --parents --children " +
  "--walk-reflogs -g --log-size --encoding= --expand-tabs?= --no-expand-tabs -c --cc -m --dd --diff-merges= --remerge-diff " +
  "--count -<number>";

const FETCH =
  "--all -a --append --prune -p --prune-tags -P --tags -t --no-tags -n --depth= --deepen= --shallow-since= --shallow-exclude= " +
  "--unshallow --update-shallow --dry-run -f --force -k --keep -q --quiet -v --verbose --progress --no-progress -j= --jobs= " +
  "--multiple --set-upstream --no-recurse-submodules --refetch --filter= --porcelain --atomic --no-write-fetch-head " +
  "--show-forced-updates --no-show-forced-updates -4 -6 --ipv4 --ipv6 -o= --server-option=";

const MERGING =
  "--ff --no-ff --ff-only --squash --no-squash --commit --no-commit --no-edit --stat --no-stat --autostash --no-autostash " +
  "--allow-unrelated-histories -s= --strategy= -X= --strategy-option= --verify --no-verify --signoff --no-signoff --log?= --no-log " +
  "--rerere-autoupdate --no-rerere-autoupdate --no-gpg-sign";

const PATHSPEC_FILE = "--pathspec-from-file= --pathspec-file-nul";

/** git's subcommands: the options each may carry under an "always" key. */
const GIT: Record<string, string> = {
  status:
    "-s --short -b --branch --porcelain?= --long -v --verbose -u?= --untracked-files?= --ignored?= --ignore-submodules?= -z " +
    "--column?= --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames?= --show-stash",
  log: `${DIFF} ${LOG}`,
  show: `${DIFF} ${LOG}`,
  whatchanged: `${DIFF} ${LOG}`,
  diff: `${DIFF} --cached --staged --no-index -0 -1 -2 -3 --base --ours --theirs`,
  "range-diff": `${DIFF} --creation-factor= --no-dual-color --left-only --right-only`,
  shortlog: `${LOG} -s --summary -e --email --group= --committer -w?=`,
  "rev-list": `${LOG} --objects --objects-edge --no-object-names --max-age= --min-age= --left-only --right-only --in-commit-order`,
  reflog: "--all --oneline -n= --max-count= --date= --format= --pretty?= --relative-date -<number>",
  branch:
    "-a --all -r --remotes -l --list -v --verbose -d -D --delete -m -M --move -c -C --copy --show-current --merged?= --no-merged?= " +
    "--contains?= --no-contains?= --points-at= --sort= --format= --color?= --no-color --column?= --no-column -q --quiet -t --track?= " +
    "--no-track -u= --set-upstream-to= --unset-upstream -f --force --abbrev= --no-abbrev -i --ignore-case --create-reflog",
  add: `-A --all -u --update -N --intent-to-add -f --force -v --verbose -n --dry-run --ignore-errors --ignore-missing --renormalize --no-all --ignore-removal --chmod= --sparse ${PATHSPEC_FILE}`,
  commit:
    "-m= --message= -a --all --amend --no-edit -q --quiet -s --signoff --no-signoff --no-verify -n --verify --allow-empty " +
    `--allow-empty-message -F= --file= -C= --reuse-message= --fixup= --squash= --author= --date= --only -o -i --include --dry-run ` +
    `--short --porcelain --branch --long -z --cleanup= --reset-author --no-post-rewrite --trailer= --status --no-status -u?= ` +
    `--untracked-files?= --no-gpg-sign ${PATHSPEC_FILE}`,
  checkout:
    "-b= -B= -f --force -q --quiet --detach -t --track?= --no-track --orphan= -m --merge --ours --theirs --conflict= " +
    `--ignore-other-worktrees --no-recurse-submodules --progress --no-progress --guess --no-guess --overlay --no-overlay ${PATHSPEC_FILE}`,
  switch:
    "-c= -C= --create= --force-create= -d --detach -f --force --discard-changes -m --merge -t --track?= --no-track --guess --no-guess " +
    "--orphan= -q --quiet --progress --no-progress --conflict= --ignore-other-worktrees --no-recurse-submodules",
  restore:
    "-s= --source= -S --staged -W --worktree --ours --theirs -m --merge --conflict= --ignore-unmerged --overlay --no-overlay -q " +
    `--quiet --progress --no-progress --ignore-skip-worktree-bits ${PATHSPEC_FILE}`,
  reset: `--soft --mixed --hard --merge --keep -q --quiet -N --intent-to-add --no-refresh --refresh --no-recurse-submodules ${PATHSPEC_FILE}`,
  fetch: FETCH,
  pull: `${FETCH} ${MERGING} --rebase?= -r --no-rebase -e`,
  push:
    "-f --force --force-with-lease?= --force-if-includes -u --set-upstream --all --branches --tags --follow-tags --no-follow-tags " +
    "-d --delete --dry-run -n --porcelain -q --quiet -v --verbose --progress --no-progress --atomic --no-atomic --prune --mirror " +
    "--no-verify --verify -o= --push-option= --repo= -4 -6 --ipv4 --ipv6 --no-signed",
  clone:
    "--depth= -b= --branch= --single-branch --no-single-branch --no-tags -q --quiet -v --verbose --progress --no-checkout -n " +
    "--filter= --sparse --shallow-since= --shallow-exclude= -j= --jobs= --origin= --no-hardlinks -l --local --dissociate " +
    "--also-filter-submodules --reject-shallow --no-reject-shallow",
  merge: `${MERGING} -m= --message= -F= --file= --abort --continue --quit -n -q --quiet -v --verbose --progress --no-progress --into-name=`,
  rebase:
    "--continue --abort --skip --quit --onto= --keep-base --autostash --no-autostash --autosquash --no-autosquash -q --quiet -v " +
    "--verbose --stat --no-stat -n --no-verify --verify -f --force-rebase --no-ff --fork-point --no-fork-point --root -m --merge " +
    "-s= --strategy= -X= --strategy-option= --committer-date-is-author-date --ignore-date --reset-author-date --signoff " +
    "--update-refs --no-update-refs --rebase-merges?= --no-rebase-merges --empty= --reapply-cherry-picks --no-reapply-cherry-picks " +
    "--allow-empty-message -C= --ignore-whitespace --whitespace= --rerere-autoupdate --no-rerere-autoupdate --no-gpg-sign",
  "cherry-pick":
    "-n --no-commit -x -s --signoff -m= --mainline= --ff --allow-empty --allow-empty-message --keep-redundant-commits --empty= " +
    "--continue --abort --quit --skip --strategy= -X= --strategy-option= --rerere-autoupdate --no-rerere-autoupdate --no-gpg-sign",
  revert:
    "-n --no-commit --no-edit -s --signoff -m= --mainline= --continue --abort --quit --skip --strategy= -X= --strategy-option= " +
    "--reference --rerere-autoupdate --no-rerere-autoupdate --no-gpg-sign",
  stash: `-u --include-untracked -a --all -k --keep-index --no-keep-index -q --quiet -m= --message= --index -S --staged -p --patch --stat --name-only ${PATHSPEC_FILE}`,
  tag:
    "-l --list -a --annotate -m= --message= -F= --file= -d --delete -f --force -n?= --sort= --contains?= --no-contains?= " +
    "--merged?= --no-merged?= --points-at?= --format= --column?= --no-column -i --ignore-case --color?= --create-reflog --no-sign",
  remote: "-v --verbose -f -t= -m= --tags --no-tags --push --add --delete --all --dry-run -n --auto",
  "rev-parse":
    "--show-toplevel --show-prefix --show-cdup --git-dir --absolute-git-dir --git-common-dir --is-inside-work-tree " +
    "--is-inside-git-dir --is-bare-repository --is-shallow-repository --abbrev-ref?= --short?= --verify -q --quiet --symbolic " +
    "--symbolic-full-name --all --branches?= --tags?= --remotes?= --glob= --default= --show-superproject-working-tree " +
    "--show-object-format?= --local-env-vars --path-format= --git-path= --since= --until= --sq --not --revs-only --no-revs --flags --no-flags",
  "ls-files":
    "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed -z --directory " +
    "--no-empty-directory --exclude-standard -x= --exclude= -X= --exclude-from= --exclude-per-directory= --error-unmatch " +
    "--full-name --abbrev?= --eol --deduplicate --format= --sparse -t -v -f",
  "ls-tree": "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree --abbrev?= --format=",
  "ls-remote": "--heads --tags --branches --refs -q --quiet --exit-code --get-url --sort= --symref -o= --server-option=",
  blame:
    "-L= -l -t -S= -p --porcelain --line-porcelain --incremental --root --show-stats --progress --no-progress -f --show-name -n " +
    "--show-number -s -e --show-email -w --ignore-rev= --ignore-revs-file= --color-lines --color-by-age --minimal --abbrev= -c " +
    "-M?= -C?= --since= --date=",
  grep:
    "-i --ignore-case -I -w --word-regexp -v --invert-match -h -H --full-name -E --extended-regexp -G --basic-regexp -F " +
    "--fixed-strings -P --perl-regexp -n --line-number --column -l --files-with-matches --name-only -L --files-without-match -z " +
    "--null -c --count --color?= --no-color --break --heading -p --show-function -W --function-context -A= -B= -C= " +
    "--after-context= --before-context= --context= --threads= -e= -f= --and --or --not --all-match -q --quiet --cached " +
    "--untracked --no-index --no-exclude-standard --exclude-standard -a --text --no-textconv --max-depth= -r --recursive " +
    "--no-recursive -o --only-matching -m= --max-count= -<number>",
  describe: "--tags --all --long --abbrev= --always --dirty?= --broken?= --exact-match --candidates= --first-parent --match= --exclude= --contains",
  init: "-q --quiet -b= --initial-branch= --object-format= --shared?=",
  mv: "-f --force -k -n --dry-run -v --verbose",
  rm: `-f --force -n --dry-run -r --cached -q --quiet --ignore-unmatch --sparse ${PATHSPEC_FILE}`,
  worktree:
    "-f --force --detach --checkout --no-checkout --lock --reason= -q --quiet --track --no-track --guess-remote " +
    "--no-guess-remote -b= -B= --orphan --porcelain -z -v --verbose --expire= -n --dry-run",
  "cat-file": "-t -s -e -p --batch?= --batch-check?= --batch-all-objects --buffer --follow-symlinks --unordered -Z --use-mailmap",
  "show-ref": "--head --heads --branches --tags -d --dereference -s --hash?= --verify --abbrev?= -q --quiet --exists --exclude-existing?=",
  "merge-base": "-a --all --octopus --is-ancestor --independent --fork-point",
  "for-each-ref": "--format= --sort= --count= --points-at= --merged?= --no-merged?= --contains?= --no-contains?= --ignore-case --shell --python --tcl --exclude=",
  "check-ignore": "-q --quiet -v --verbose -n --non-matching --stdin -z --no-index",
  "check-attr": "-a --all --cached --stdin -z --source=",
  "count-objects": "-v --verbose -H --human-readable",
  "name-rev": "--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always",
  apply:
    "--stat --numstat --summary --check --index --cached --intent-to-add -3 --3way --ours --theirs --union -R --reverse --reject -z " +
    "-p= -C= --unidiff-zero --apply --no-add --binary --exclude= --include= --ignore-space-change --ignore-whitespace --whitespace= " +
    "--inaccurate-eof -v --verbose -q --quiet --recount --directory= --allow-empty",
  "format-patch":
    `-o=w --output-directory=w -n --numbered -N --no-numbered --start-number= --stdout --cover-letter --no-cover-letter -v= ` +
    `--reroll-count= --subject-prefix= --rfc?= -s --signoff --root --base= --no-stat --zero-commit --no-binary -k --keep-subject ${DIFF} -<number>`,
  archive: "--format= -l --list -v --verbose --prefix= -o=w --output=w --worktree-attributes --add-file= -0 -1 -2 -3 -4 -5 -6 -7 -8 -9",
  gc: "--aggressive --auto --prune?= --no-prune -q --quiet --force --keep-largest-pack",
  "sparse-checkout": "--cone --no-cone --sparse-index --no-sparse-index --skip-checks",
  cherry: "-v --abbrev?=",
  version: "--build-options",
  help: "-a --all -g --guides",
};

const NPM =
  "--silent -s --quiet -q --verbose --loglevel= --workspace= -w= --workspaces --include-workspace-root --if-present " +
  "--ignore-scripts --foreground-scripts --json --parseable -p --long -l --all -a --depth= --dry-run --save -S --no-save " +
  "--save-dev -D --save-prod -P --save-optional -O --save-peer --save-exact -E --legacy-peer-deps --strict-peer-deps --force -f " +
  "--no-audit --audit --no-fund --fund --prefer-offline --prefer-online --offline --production --omit= --include= " +
  "--package-lock-only --no-package-lock --install-links --install-strategy= --tag= --color?= --no-color --progress " +
  "--no-progress --yes -y --watch --coverage";

const PNPM =
  "--silent -s --reporter= --loglevel= --filter= -F= --recursive -r --workspace-root -w --if-present --parallel --stream " +
  "--aggregate-output --no-bail --sort --frozen-lockfile --no-frozen-lockfile --prefer-frozen-lockfile --prod -P --dev -D " +
  "--save-dev --save-prod --save-optional -O --save-exact -E --save-peer --ignore-scripts --offline --prefer-offline --force " +
  "--lockfile-only --depth= --json --long --no-optional --color --no-color";

const YARN =
  "--silent -s --frozen-lockfile --immutable --immutable-cache --check-cache --prefer-offline --offline --ignore-scripts " +
  "--production --dev -D --peer -P --optional -O --exact -E --tilde -T --json --verbose --force --mode= --inline-builds";

const BUN_TEST =
  "--timeout= --watch --bail?= --coverage --coverage-reporter= --update-snapshots -u --only --todo --rerun-each= -t= " +
  "--test-name-pattern= --reporter= --reporter-outfile=w --concurrent --randomize --seed= --max-concurrency= --pass-with-no-tests";

const BUN_INSTALL =
  "--frozen-lockfile --production -p --dry-run --no-save --save --silent --verbose --force -f -D -d --dev --optional --peer " +
  "--exact -E --no-cache --ignore-scripts --lockfile-only --yarn --trust --no-verify --no-progress --no-summary --filter= --omit=";

const BUN_BUILD =
  "--outdir=w --outfile=w --target= --format= --minify --minify-syntax --minify-whitespace --minify-identifiers --sourcemap?= " +
  "--splitting --external= -e= --packages= --root= --public-path= --entry-naming= --chunk-naming= --asset-naming= --watch " +
  "--no-clear-screen --env= --production --no-bundle --compile --bytecode --conditions= --jsx-factory= --jsx-fragment= --jsx-runtime=";

const BUN_RUN = "--silent --bun --watch --hot --no-clear-screen --if-present --filter= --elide-lines= --smol";

const FD =
  "-H --hidden -I --no-ignore -u --unrestricted -s --case-sensitive -i --ignore-case -g --glob --regex -F --fixed-strings -a " +
  "--absolute-path -l --list-details -L --follow -p --full-path -0 --print0 -d= --max-depth= --min-depth= --exact-depth= -t= " +
  "--type= -e= --extension= -E= --exclude= -S= --size= --changed-within= --changed-before= --max-results= -1 -q --quiet " +
  "--show-errors --color= -c= -j= --threads= --prune --one-file-system --search-path= --base-directory=";

/** The lists by program, or by program and subcommand ("git log"); "npm *" is any npm subcommand. */
const LISTS: Record<string, { text: string; untilOperand?: boolean }> = {
  ...Object.fromEntries(Object.entries(GIT).map(([sub, text]) => [`git ${sub}`, { text }])),
  "git *": { text: "" },
  "npm *": { text: NPM },
  "pnpm *": { text: PNPM },
  "pnpm run": { text: PNPM, untilOperand: true },
  "pnpm exec": { text: PNPM, untilOperand: true },
  "pnpm dlx": { text: PNPM, untilOperand: true },
  "yarn *": { text: YARN },
  "yarn run": { text: YARN, untilOperand: true },
  "yarn exec": { text: YARN, untilOperand: true },
  "yarn dlx": { text: YARN, untilOperand: true },
  "bun test": { text: BUN_TEST },
  "bun install": { text: BUN_INSTALL },
  "bun i": { text: BUN_INSTALL },
  "bun add": { text: BUN_INSTALL },
  "bun remove": { text: BUN_INSTALL },
  "bun rm": { text: BUN_INSTALL },
  "bun update": { text: BUN_INSTALL },
  "bun build": { text: BUN_BUILD },
  "bun run": { text: BUN_RUN, untilOperand: true },
  "bun *": { text: "", untilOperand: true },
  make: {
    text:
      "-j?= --jobs?= -k --keep-going -s --silent --quiet -n --dry-run --just-print --recon -B --always-make -q --question -i " +
      "--ignore-errors -w --print-directory --no-print-directory -O?= --output-sync?= -l?= --load-average?= -e " +
      "--environment-overrides -r --no-builtin-rules -R --no-builtin-variables -p --print-data-base -d --debug?= --trace " +
      "--warn-undefined-variables -S --no-keep-going --stop",
  },
  sort: {
    text:
      "-b -d -f -g -h -i -M -n -R -r -V -c -C -m -s -u -z --ignore-leading-blanks --dictionary-order --ignore-case " +
      "--general-numeric-sort --human-numeric-sort --ignore-nonprinting --month-sort --numeric-sort --random-sort --reverse " +
      "--version-sort --check?= --merge --stable --unique --zero-terminated -k= --key= -t= --field-separator= -S= --buffer-size= " +
      "-T=w --temporary-directory=w --parallel= -o=w --output=w --batch-size= --debug",
  },
  fd: { text: FD },
  fdfind: { text: FD },
  curl: {
    text:
      "-s --silent -S --show-error -f --fail --fail-with-body -L --location -o=w --output=w -O --remote-name --remote-name-all " +
      "--output-dir=w --create-dirs -I --head -i --include -v --verbose -X= --request= -H= --header= -d= --data= --data-raw= " +
      "--data-binary= --data-urlencode= --json= -G --get -k --insecure --compressed -m= --max-time= --connect-timeout= --retry= " +
      "--retry-delay= --retry-max-time= --retry-all-errors -w= --write-out= -A= --user-agent= -e= --referer= -u= --user= -x= " +
      "--proxy= --noproxy= -# --progress-bar --no-progress-meter -N --no-buffer -4 -6 --http1.0 --http1.1 --http2 --http3 -r= " +
      "--range= -C= --continue-at= -z= --time-cond= -D=w --dump-header=w -c=w --cookie-jar=w -b= --cookie= --url= -F= --form= " +
      "-T= --upload-file= --max-filesize= --limit-rate= -Z --parallel -q --disable",
  },
  wget: {
    text:
      "-q --quiet -v --verbose -nv --no-verbose -O=w --output-document=w -o=w --output-file=w -a=w --append-output=w -P=w " +
      "--directory-prefix=w -c --continue -N --timestamping -S --server-response --spider -T= --timeout= -t= --tries= --header= " +
      "-U= --user-agent= --no-check-certificate --https-only --max-redirect= --content-disposition --progress= --show-progress " +
      "-nc --no-clobber -nd --no-directories -np --no-parent -nH --no-host-directories --limit-rate= -w= --wait= " +
      "--retry-connrefused -4 -6 --inet4-only --inet6-only --method= --body-data= --post-data= --compression= -Q= --quota=",
  },
  man: { text: "-k -f -a -w -W --where --where-cat -s= -S= --sections= -L= --locale= -7 --ascii -E= --encoding= --no-hyphenation --no-justification --apropos --whatis --all" },
};

const parsed = new Map<string, Listed>();

/**
 * The option list an "always" key for this program (and subcommand) covers; undefined for a
 * program whose options are not listed (any of them is covered: none runs another program).
 */
export function listedOptions(name: string, sub: string | null): Listed | undefined {
  const key = [sub === null ? null : `${name} ${sub}`, `${name} *`, name].find((k) => k !== null && k in LISTS);
  if (key === undefined || key === null) return undefined;
  let listed = parsed.get(key);
  if (!listed) {
    const entry = LISTS[key] as { text: string; untilOperand?: boolean };
    listed = { options: optionLists(entry.text), ...(entry.untilOperand ? { untilOperand: true } : {}) };
    parsed.set(key, listed);
  }
  return listed;
}
