// The provider supervisor (plain JavaScript: it runs under a bare `node`, with no loader). The
// bridge worker starts it as the leader of a new process group, with the provider's three pipes
// as its stdio and a "lifeline" socket as fd 3. It starts the provider in its own group with
// those pipes (the provider talks to the bridge directly, nothing is relayed), then waits for one
// of two things: the lifeline closing (the validator is done, or died — even by SIGKILL, since the
// kernel closes its end) or the provider exiting. Either way it stops the whole group: SIGTERM,
// a short grace for the group to empty, then SIGKILL. So no provider process, nor anything the
// provider forked, outlives the validator, whatever path the validator leaves by.
//
// argv[2] is JSON: { file, args, graceMs } — the program to run and the grace in milliseconds.
//
// Reports to the bridge, one JSON object per line on fd 3:
//   {"event":"exit","code":N|null,"signal":"SIGX"|null}   the provider exited
//   {"event":"spawn-error","message":"…"}                  the provider could not be started
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';

/** How often the group is scanned while it empties: short next to any grace worth giving. */
const kScanIntervalMs = 20;
/** How long an emptied group waits for the provider's exit to be reported (it may be a zombie not yet reaped). */
const kExitReportWaitMs = 100;

const { file, args, graceMs } = JSON.parse(process.argv[2]);
const pgid = process.pid;
let stopping = false;

// The group gets SIGTERM from us, and a terminal's Ctrl-C or hang-up must not end the supervisor
// before it has stopped the provider; only the final SIGKILL of the group ends it.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => {});

const lifeline = new Socket({ fd: 3, readable: true, writable: true, allowHalfOpen: true });
lifeline.on('error', () => stop());
lifeline.on('end', () => stop());
lifeline.on('close', () => stop());
lifeline.on('data', () => {});

function report(event) {
  if (!lifeline.destroyed && lifeline.writable) lifeline.write(`${JSON.stringify(event)}\n`);
}

// fd 3 of the provider is /dev/null, so it cannot write reports of its own on the lifeline.
const devNull = openSync('/dev/null', 'r');
let child;
let childExited = false;
try {
  child = spawn(file, args, { stdio: ['inherit', 'inherit', 'inherit', devNull] });
} catch (error) {
  report({ event: 'spawn-error', message: String(error?.message ?? error) });
  stop();
}
child?.on('error', (error) => {
  report({ event: 'spawn-error', message: String(error?.message ?? error) });
  stop();
});
child?.on('exit', (code, signal) => {
  childExited = true;
  report({ event: 'exit', code, signal });
  stop();
});
// Our copies of the pipes would keep the bridge from seeing the provider's stdout end when the
// provider exits; from here on only the provider (and what it forks) holds them.
for (const fd of [0, 1, 2]) {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to give up.
  }
}

/** Members of our process group other than us, zombies left out (they are dead, only unreaped). */
function groupMembers() {
  const members = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === pgid) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …, where comm may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(entry));
  }
  return members;
}

/** SIGTERM to the group, a grace for it to empty, then SIGKILL to the group (ourselves included). */
function stop() {
  if (stopping) return;
  stopping = true;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    // The group is already gone but for us.
  }
  const deadline = Date.now() + graceMs;
  const canScan = process.platform === 'linux';
  const poll = () => {
    let empty = false;
    if (canScan) {
      try {
        empty = groupMembers().length === 0;
      } catch {
        empty = false;
      }
    }
    if (empty) finish(false);
    else if (Date.now() >= deadline) finish(true);
    else setTimeout(poll, kScanIntervalMs);
  };
  poll();
}

function finish(force) {
  if (force) process.kill(-pgid, 'SIGKILL');
  const leave = () => {
    // Let the last report reach the bridge before going.
    if (lifeline.destroyed) process.exit(0);
    lifeline.end(() => process.exit(0));
    setTimeout(() => process.exit(0), kExitReportWaitMs).unref();
  };
  if (childExited || child === undefined) leave();
  else {
    child.once('exit', () => setImmediate(leave));
    setTimeout(leave, kExitReportWaitMs).unref();
  }
}
