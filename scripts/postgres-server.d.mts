export interface TestPostgres {
  /** Creates an empty database on the server and returns its URL. */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
}
export function postgresBinDir(): string | undefined;
export function startPostgres(): Promise<TestPostgres>;
