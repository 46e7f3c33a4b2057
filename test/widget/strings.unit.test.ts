/**
 * The widget's counted message in each built-in language: the form its plural rules pick
 * (`Intl.PluralRules`: French calls 0 and 1 "one", English only 1), and a site's own language
 * that gives only the plural form keeps it for one too rather than falling back to English.
 */
import { describe, expect, it } from 'vitest';
import { addTranslation, rateLimitedText, stringsFor } from '../../widget/strings.ts';

describe('the rate-limit message', () => {
  it('says "1 second" and "2 seconds" in English', () => {
    const en = stringsFor('en');
    expect(rateLimitedText(en, 1)).toBe('Too many attempts. Try again in 1 second.');
    expect(rateLimitedText(en, 2)).toBe('Too many attempts. Try again in 2 seconds.');
    expect(rateLimitedText(en, 0)).toBe('Too many attempts. Try again in 0 seconds.');
  });

  it('follows each built-in language’s plural rules', () => {
    expect(rateLimitedText(stringsFor('de'), 1)).toBe('Zu viele Versuche. Versuchen Sie es in 1 Sekunde erneut.');
    expect(rateLimitedText(stringsFor('de'), 30)).toBe('Zu viele Versuche. Versuchen Sie es in 30 Sekunden erneut.');
    expect(rateLimitedText(stringsFor('es'), 1)).toBe('Demasiados intentos. Inténtelo de nuevo dentro de 1 segundo.');
    expect(rateLimitedText(stringsFor('nl-NL'), 1)).toBe('Te veel pogingen. Probeer het over 1 seconde opnieuw.');
    // French: 0 and 1 are singular.
    expect(rateLimitedText(stringsFor('fr'), 0)).toBe('Trop de tentatives. Réessayez dans 0\u00a0seconde.');
    expect(rateLimitedText(stringsFor('fr'), 2)).toBe('Trop de tentatives. Réessayez dans 2\u00a0secondes.');
  });

  it('keeps a site’s own language whole when it gives only the plural form', () => {
    addTranslation('pt', { rateLimited: 'Muitas tentativas. Tente de novo em {s} segundos.' });
    expect(rateLimitedText(stringsFor('pt-BR'), 1)).toBe('Muitas tentativas. Tente de novo em 1 segundos.');
    addTranslation('pt', { rateLimitedOne: 'Muitas tentativas. Tente de novo em {s} segundo.' });
    expect(rateLimitedText(stringsFor('pt-BR'), 1)).toBe('Muitas tentativas. Tente de novo em 1 segundo.');
  });
});
