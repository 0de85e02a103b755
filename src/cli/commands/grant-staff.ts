import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addUserFlagCommand } from './user-flag-command.js'

export function addGrantStaffCommand(program: Command, kit: CommandKit): void {
  addUserFlagCommand(program, kit, {
    name: 'grant-staff',
    description: 'make a user staff (is_staff, what IsAdminUser allows), on every server',
    done: 'Granted staff status to user',
    apply: (users, id) => users.setStaff(id, true),
  })
}
