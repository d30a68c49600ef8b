# SPDX-License-Identifier: GPL-2.0
"""A doctest of the console blocks of reStructuredText pages.

A console block is what a reader types and what the terminal prints::

    .. code-block:: console
       :name: tut-hello-cat

       $ cat /mnt/hello
       Hello from kernfs!

Every line that starts with "$ " is a command; the lines after it, up
to the next command, are what it prints (standard output and standard
error together). run() feeds the commands of all blocks, in page
order, to one bash, so that the working directory, variables and open
file descriptors carry from one command to the next as they do in the
reader's terminal, and compares what each command printed with the
page. Each block is one test case, named by its :name: option.

The shell runs with LC_ALL=C, so that error messages are the English,
ASCII ones the pages show, and writes to an 80-column pseudo-terminal,
as in the reader's terminal. When it runs as root and no sudo is installed,
"sudo" is a shell function that runs its arguments: the pages show the
commands as an ordinary user types them.
"""
import difflib
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time

DIRECTIVE = re.compile(r"^\.\. code-block:: console\s*$")
END = "__KFE_DOCTEST_END__"


class Block:
    """One console block: NAME, the rst FILE and LINE where it starts,
    and its STEPS, a list of (command, expected output lines, line of
    the command in FILE)."""

    def __init__(self, name, file, line, steps):
        self.name, self.file, self.line, self.steps = name, file, line, steps


def parse(path):
    """The console blocks of the page at PATH, in page order."""
    with open(path) as f:
        lines = f.read().splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if not DIRECTIVE.match(lines[i]):
            i += 1
            continue
        start = i + 1
        i += 1
        name = None
        while i < len(lines) and re.match(r"^\s+:[\w-]+:", lines[i]):
            m = re.match(r"^\s+:name:\s*(\S+)\s*$", lines[i])
            if m:
                name = m.group(1)
            i += 1
        body = []
        while i < len(lines) and (not lines[i].strip() or
                                  lines[i].startswith(" ")):
            body.append((i + 1, lines[i]))
            i += 1
        while body and not body[-1][1].strip():
            body.pop()
        while body and not body[0][1].strip():
            body.pop(0)
        indent = min((len(l) - len(l.lstrip()) for _, l in body
                      if l.strip()), default=0)
        steps = []
        for n, l in body:
            l = l[indent:]
            if l.startswith("$ "):
                steps.append((l[2:], [], n))
            elif steps:
                steps[-1][1].append(l)
            else:
                raise ValueError(f"{path}:{start}: output before any command")
        if name is None:
            raise ValueError(f"{path}:{start}: console block without :name:")
        if not steps:
            raise ValueError(f"{path}:{start}: console block without a command")
        blocks.append(Block(name, path, start, steps))
    return blocks


class Shell:
    """One bash that runs commands one at a time, as a terminal does.

    Its output goes to a pseudo-terminal of 80 columns, as a reader's
    does: ls lists in columns when it writes to the terminal and one
    name a line into a pipe, and programs buffer their output as they
    do on a terminal. Commands come from a pipe, so that nothing is
    echoed.
    """

    def __init__(self, cwd):
        env = dict(os.environ, LC_ALL="C", LANG="C", COLUMNS="80",
                   TERM="dumb")
        self.master, slave = pty.openpty()
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.ONLCR		# "\n", not "\r\n"
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        fcntl.ioctl(slave, termios.TIOCSWINSZ,
                    struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(
            ["/bin/bash", "--noprofile", "--norc"], cwd=cwd, env=env,
            stdin=subprocess.PIPE, stdout=slave, stderr=slave)
        os.close(slave)
        self.buf = b""
        if os.geteuid() == 0:
            self._send('command -v sudo >/dev/null || sudo() { "$@"; }\n')

    def _send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def run(self, command, timeout=120):
        """The output of COMMAND as a list of lines, or None on timeout.

        The command runs in the shell itself (so that cd and exec stay
        in effect), with standard input from /dev/null, so that it
        cannot read the commands that follow it.
        """
        self._send("{\n%s\n} </dev/null 2>&1\nprintf '\\n%s\\n'\n"
                   % (command, END))
        deadline = time.monotonic() + timeout
        marker = ("\n" + END + "\n").encode()
        while marker not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.master], [], [],
                                              left)[0]:
                return None
            try:
                chunk = os.read(self.master, 65536)
            except OSError:		# EIO: the shell has gone
                chunk = b""
            if not chunk:
                return None
            self.buf += chunk
        out, self.buf = self.buf.split(marker, 1)
        text = out.decode(errors="replace")
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n") if text else []

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.master)


def run(blocks, cwd, suite):
    """Run BLOCKS in order in one shell started in CWD; record each block
    as a case of the ktap SUITE, with a diff of the page against the
    terminal when they differ."""
    shell = Shell(cwd)
    try:
        for b in blocks:
            diag = []
            for command, want, n in b.steps:
                got = shell.run(command)
                if got is None:
                    diag.append(f"{b.file}:{n}: $ {command}: "
                                "no prompt after 120 s")
                    shell.close()
                    shell = Shell(cwd)
                    break
                if got != want:
                    diag.append(f"{b.file}:{n}: $ {command}")
                    diag += difflib.unified_diff(
                        want, got, "page", "terminal", lineterm="")
            suite.check(b.name, not diag, "\n".join(diag))
    finally:
        shell.close()
