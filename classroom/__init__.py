# SPDX-License-Identifier: GPL-2.0-only
# SPDX-FileCopyrightText: 2026 The kasan-tags authors
"""The classroom: what turns the course (labs/) into a class.

    handout      make handout: the student tree, made from this solution tree
    submit       make submit: a student's archive
    gradeclass   make grade-class, make grade-merge: every student graded in
                 a fresh handout, at their seed and a hidden one
    summary      the class summary (csv, json, html)
    secret       the course secret and the seeds it gives each student
    autograder   Gradescope; ci/ for GitHub Actions and Slurm
    implscan     does a handout leak a solution?
    bench_class  students per hour

It uses the course (labs/) and the machine (vm/); nothing there imports it.
"""
