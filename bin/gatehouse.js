#!/usr/bin/env node
// Thin launcher: the compiled command line lives in dist/ (built by `npm install` via `prepare`).
import '../dist/reference-api/main.js'
