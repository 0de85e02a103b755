// The `drf-gatehouse` executable: bin/drf-gatehouse.js imports the compiled copy of this file.
import { main } from './main.js'

const code = await main(process.argv.slice(2))
process.exitCode = code
