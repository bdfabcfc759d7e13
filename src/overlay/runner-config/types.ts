/** What reading the base's runner configuration yields. */

/** A path the base's runner configuration names, which the overlay takes from the base. */
export interface NamedPath {
  /** A repository path or glob. */
  path: string;
  /** Globs taken out again (a runner's own exclude list for its test-file globs). */
  except?: readonly string[];
  /** The base file that names it, the line, and the key or flag. */
  from: string;
  line: number;
  key: string;
}

/** A value under a key that loads code into the test process, which the gate could not read statically. */
export interface UnreadValue {
  file: string;
  line: number;
  key: string;
  /** The source text, shortened. */
  value: string;
  why: string;
  /**
   * Under a key that maps module names (an alias, a module mapper): its
   * targets are production modules unless one is a stub, so an unread value
   * is worth a warning, not an undecided run.
   */
  mapping?: boolean;
}

/** A file the runner's configuration imports that other code imports too: it stays the head's. */
export interface SharedImport {
  path: string;
  /** The configuration file (or instrument) that imports it. */
  from: string;
  line: number;
  /** A file outside the configuration that imports it too, or the package entry naming it. */
  alsoFrom: string;
}

export interface RunnerFiles {
  named: NamedPath[];
  unread: UnreadValue[];
  shared: SharedImport[];
}

/** The base revision's files, read from git's objects. */
export interface BaseFiles {
  readonly paths: readonly string[];
  has(path: string): boolean;
  /** True when some file lies under this folder. */
  isDir(path: string): boolean;
  /** The file's text (undefined when missing, not UTF-8, or too large to be a config). */
  read(path: string): Promise<string | undefined>;
}
