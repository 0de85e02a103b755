import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addUserFlagCommand } from './user-flag-command.js'

export function addRevokeStaffCommand(program: Command, kit: CommandKit): void {
  addUserFlagCommand(program, kit, {
    name: 'revoke-staff',
    description: "take a user's staff status away (is_staff), on every server",
    done: 'Revoked staff status of user',
    apply: (users, id) => users.setStaff(id, false),
  })
}
