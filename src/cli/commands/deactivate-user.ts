import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addUserFlagCommand } from './user-flag-command.js'

export function addDeactivateCommand(program: Command, kit: CommandKit): void {
  addUserFlagCommand(program, kit, {
    name: 'deactivate-user',
    description: 'deactivate a user: their password, token and sessions stop working on every server (nothing is deleted)',
    done: 'Deactivated user',
    apply: (users, id) => users.setActive(id, false),
  })
}
