import type { Command } from 'commander'
import type { CommandKit } from '../command-kit.js'
import { addUserFlagCommand } from './user-flag-command.js'

export function addGrantSuperuserCommand(program: Command, kit: CommandKit): void {
  addUserFlagCommand(program, kit, {
    name: 'grant-superuser',
    description: 'make a user a superuser (is_superuser: may act on staff accounts in the admin pages), on every server',
    done: 'Granted superuser status to user',
    apply: (users, id) => users.setSuperuser(id, true),
  })
}

export function addRevokeSuperuserCommand(program: Command, kit: CommandKit): void {
  addUserFlagCommand(program, kit, {
    name: 'revoke-superuser',
    description: "take a user's superuser status away (is_superuser), on every server",
    done: 'Revoked superuser status of user',
    apply: (users, id) => users.setSuperuser(id, false),
  })
}
