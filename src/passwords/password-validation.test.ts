import { describe, expect, it } from 'vitest'
import { CommonPasswordValidator, defaultPasswordValidators, MinimumLengthValidator, NumericPasswordValidator, passwordValidatorsHelpTexts, UserAttributeSimilarityValidator, validatePassword, type PasswordValidator } from './password-validation.js'

describe('password validators (Django 3.2 defaults; compared with Django itself in test/oracle/django/)', () => {
  it('refuse with Django’s messages, in the default order', async () => {
    expect(await validatePassword('a', { username: 'a' })).toEqual(['The password is too similar to the username.', 'This password is too short. It must contain at least 8 characters.', 'This password is too common.'])
    expect(await validatePassword('password', null)).toEqual(['This password is too common.'])
    expect(await validatePassword(' PassWord ', null)).toEqual(['This password is too common.'])
    expect(await validatePassword('98127634', null)).toEqual(['This password is entirely numeric.'])
    expect(await validatePassword('correct horse battery staple', { username: 'alice' })).toEqual([])
  })

  it('count characters as code points, and name a minimum of one in the singular', async () => {
    expect(new MinimumLengthValidator({ minLength: 2 }).validate('😀')).toEqual(['This password is too short. It must contain at least 2 characters.'])
    expect(new MinimumLengthValidator({ minLength: 2 }).validate('😀😀')).toEqual([])
    expect(new MinimumLengthValidator({ minLength: 1 }).validate('')).toEqual(['This password is too short. It must contain at least 1 character.'])
    expect(() => new MinimumLengthValidator({ minLength: -1 })).toThrow(RangeError)
  })

  it('compare with each part of an attribute, and with custom attributes and names', () => {
    const similarity = new UserAttributeSimilarityValidator()
    expect(similarity.validate('smith2024', { username: 'bob', email: 'alice.smith@example.com' })).toEqual(['The password is too similar to the email address.'])
    expect(similarity.validate('smith2024', null)).toEqual([])
    const custom = new UserAttributeSimilarityValidator({ attributes: { nickname: 'nickname' } })
    expect(custom.validate('bobby99', { username: 'x', nickname: 'Bobby' })).toEqual(['The password is too similar to the nickname.'])
    expect(() => new UserAttributeSimilarityValidator({ maxSimilarity: 0.05 })).toThrow(RangeError)
  })

  it('take a list of one’s own for common passwords, and Python’s isdigit for numeric', async () => {
    const own = new CommonPasswordValidator({ passwords: ['hunter2 '] })
    expect(await own.validate('HUNTER2')).toEqual(['This password is too common.'])
    expect(await own.validate('password')).toEqual([])
    const numeric = new NumericPasswordValidator()
    expect(numeric.validate('²³①٣')).toEqual(['This password is entirely numeric.'])
    expect(numeric.validate('½')).toEqual([])
    expect(numeric.validate('')).toEqual([])
  })

  it('run validators of one’s own, async ones included, and list every help text', async () => {
    const noGatehouse: PasswordValidator = {
      validate: async (password) => (password.includes('gatehouse') ? ['No gatehouse.'] : []),
      helpText: () => 'Your password can’t contain “gatehouse”.',
    }
    expect(await validatePassword('gatehouse-is-long', null, [...defaultPasswordValidators(), noGatehouse])).toEqual(['No gatehouse.'])
    expect(passwordValidatorsHelpTexts()).toEqual([
      'Your password can’t be too similar to your other personal information.',
      'Your password must contain at least 8 characters.',
      'Your password can’t be a commonly used password.',
      'Your password can’t be entirely numeric.',
    ])
  })
})
