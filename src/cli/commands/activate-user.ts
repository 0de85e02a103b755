import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addUserFlagCommand } from './user-flag-command.js'

export function addActivateCommand(program: Command, kit: CommandKit): void {
  addUserFlagCommand(program, kit, {
    name: 'activate-user',
    description: 'activate a user again: their password, token and sessions work again',
    done: 'Activated user',
    apply: (users, id) => users.setActive(id, true),
  })
}
