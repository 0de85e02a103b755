#!/usr/bin/env node
// Thin launcher for the library's command line (compiled into dist/ when the package is packed).
import '../dist/cli/bin.js'
