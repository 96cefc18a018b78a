# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""What a lab's step produced (Run), what its check read of it (Read), and
the runs of a lab's steps by name (Runs): what labs/grade.py hands a check."""

import re

import vm
from labs import lab as labdata
from labs import scenarios
from labs.transcripts import output_path


class Read(dict):
    """A dict that notes which keys were read: the gdb sections a check
    looked at (Run.sections), which the page then highlights."""

    def __init__(self, data, seen):
        super().__init__(data)
        self.seen = seen

    def __getitem__(self, k):
        self.seen.add(k)
        return super().__getitem__(k)

    def get(self, k, default=None):
        self.seen.add(k)
        return super().get(k, default)


class Runs(dict):
    """The runs of a lab's steps, by name.  Given the lab (grading its
    exercises only), a step that has not run runs when a check, a hint or
    a {serial:STEP} placeholder asks for it: lab 7's 7.2 reads the uaf
    step's recording, and no list of such steps can go stale."""

    def __init__(self, lab=None, run_step=None):
        super().__init__()
        self.lab, self.run_step = lab, run_step

    def __missing__(self, name):
        if self.lab is None or name not in [s["name"] for s in self.lab.steps]:
            raise KeyError(name)
        print("     step %s runs: an exercise reads it" % name, flush=True)
        self[name] = self.run_step(self.lab.folder, self.lab.step(name), self)
        return self[name]

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def can_run(self, name):
        return name in self or self.lab is not None


class Run:
    """What one step produced: serial log, gdb transcript, host output."""

    def __init__(self, lab, step, bdir):
        self.lab, self.step, self.bdir = lab, step, bdir
        self.vmlinux = vm.vmlinux(bdir)
        self.serial, self.gdb, self.host, self.status = "", "", "", "ok"
        self.paths = []
        self.control = None  # the control run of a step with `control`
        # what its check looked at: gdb sections, scenarios, single lines
        self.read = {"sections": set(), "scenarios": set(), "lines": set()}

    def sections(self):
        return Read(labdata.gdb_sections(self.gdb), self.read["sections"])

    def search(self, pattern, output="serial"):
        """re.search(pattern, self.OUTPUT, re.M), noting the line it matched."""
        m = re.search(pattern, getattr(self, output), re.M)
        if m:
            self.read["lines"].add(self.line_at(output, m.start()))
        return m

    def note(self, lines):
        """Note these lines of its output as read."""
        self.read["lines"] |= {ln.strip() for ln in lines}

    def reports(self, scenario=None):
        """The KASAN reports of the serial log (or of one scenario's part),
        parsed; their "BUG: KASAN" lines are noted as read."""
        from kasan import report
        if scenario is not None:
            self.read["scenarios"].add(scenario)   # its lab module lines too
        text = self.serial if scenario is None else "\n".join(
            scenarios.segments(self.serial).get(scenario, []))
        self.read["lines"] |= {ln.strip() for ln in text.splitlines() if "BUG: KASAN:" in ln}
        return report.parse_reports(text)

    def line_at(self, output, i):
        text = getattr(self, output)
        return text[text.rfind("\n", 0, i) + 1:].split("\n", 1)[0].strip()

    def read_lines(self):
        """The lines of its output its check read: those of each gdb section
        it looked at, the lab module's lines of each scenario it asked for,
        and the lines it searched or noted (search, reports, note)."""
        secs = labdata.gdb_sections(self.gdb)
        out = {ln.strip() for s in self.read["sections"] for ln in secs.get(s, [])}
        out |= self.read["lines"]
        for scn in self.read["scenarios"]:
            out |= {ln.strip() for ln in scenarios.segments(self.serial).get(scn, [])
                    if scenarios.LAB_LINE.search(ln)}
        return sorted(x for x in out if x)

    def lab_serial(self, step):
        """Path of the serial log another step of this lab saved."""
        return output_path(self.lab, step)

    def lab_lines(self, scenario=None):
        text = self.serial
        if scenario:
            self.read["scenarios"].add(scenario)
            return scenarios.events(scenarios.segments(text).get(scenario, []), scenario)
        return text
