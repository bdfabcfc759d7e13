// The smallest handler a head-code host can run: it answers with what it was given.
export default async function echo(task) {
  return task.value;
}
