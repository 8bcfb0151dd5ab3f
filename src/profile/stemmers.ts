import { stemmer as arabic } from '@orama/stemmers/arabic';
import { stemmer as armenian } from '@orama/stemmers/armenian';
import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as greek } from '@orama/stemmers/greek';
import { stemmer as hungarian } from '@orama/stemmers/hungarian';
import { stemmer as hindi } from '@orama/stemmers/indian';
import { stemmer as indonesian } from '@orama/stemmers/indonesian';
import { stemmer as irish } from '@orama/stemmers/irish';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as lithuanian } from '@orama/stemmers/lithuanian';
import { stemmer as nepali } from '@orama/stemmers/nepali';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as romanian } from '@orama/stemmers/romanian';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as serbian } from '@orama/stemmers/serbian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stemmer as tamil } from '@orama/stemmers/tamil';
import { stemmer as turkish } from '@orama/stemmers/turkish';
import { stemmer as porter } from 'stemmer';

/**
 * Stemmers by ISO 639-1 code; the keys are languages.ts's STEMMED_LANGUAGES.
 *
 * English keeps the Porter stemmer (`stemmer`), so English profiles stay what they were. The
 * others are the Snowball project's own stemmers as compiled to JavaScript by its compiler and
 * published one module a language by @orama/stemmers (Apache-2.0; plain ES modules, no Node
 * APIs, so they run in browsers too). Its Bulgarian, Ukrainian and Sanskrit modules are not
 * Snowball stemmers and are left out. Each function expects a lower-case word.
 */
export const STEMMERS: Readonly<Record<string, (word: string) => string>> = Object.freeze({
  ar: arabic,
  da: danish,
  de: german,
  el: greek,
  en: porter,
  es: spanish,
  fi: finnish,
  fr: french,
  ga: irish,
  hi: hindi,
  hu: hungarian,
  hy: armenian,
  id: indonesian,
  it: italian,
  lt: lithuanian,
  // Snowball's Norwegian stemmer is written for Bokmål, the written standard `no` mostly means.
  nb: norwegian,
  ne: nepali,
  nl: dutch,
  no: norwegian,
  pt: portuguese,
  ro: romanian,
  ru: russian,
  sr: serbian,
  sv: swedish,
  ta: tamil,
  tr: turkish,
});
