#!/usr/bin/env python3
"""Writes the examples' text as a script the page loads (LOPT_EXAMPLES:
name -> text), since a page opened from file:// may not fetch files.
Usage: examples.py DIR > examples.js"""
import glob
import json
import os
import sys

examples = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.tir"))):
    with open(path, encoding="utf-8") as f:
        examples[os.path.basename(path)[:-4]] = f.read()
print("var LOPT_EXAMPLES = " + json.dumps(examples, indent=0) + ";")
