/**
 * A seeded generator of long multi-session conversations between a user and an assistant: small talk,
 * and facts about people (where they live, their work, birthdays, pets, trip plans), some of them updated
 * in a later session. Each question asks for a fact's current value; its gold evidence is the sentence of
 * the turn that last stated it. All names, places and phrasing here are invented for the benchmark.
 */
import type { ModelMessage } from 'ai';
import { seededRandom } from 'pagewise/internal';

/** A question on a conversation and the sentence(s) a compressed history must still hold to answer it. */
export interface ChatQuestion {
  question: string;
  /** The fact sentences of the gold evidence turns. */
  evidence: string[];
  /** Indices of the gold evidence messages in the conversation. */
  evidenceTurns: number[];
}

/** A generated conversation. */
export interface GeneratedChat {
  messages: ModelMessage[];
  sessions: number;
  questions: ChatQuestion[];
}

const NAMES = ['Maya', 'Tomas', 'Priya', 'Jonas', 'Lena', 'Omar', 'Keiko', 'Rafael', 'Ingrid', 'Dario', 'Ana', 'Felix'];
const RELATIONS = ['sister', 'brother', 'colleague', 'neighbour', 'friend', 'cousin', 'old classmate', 'aunt'];
const CITIES = ['Porto', 'Tallinn', 'Valencia', 'Ghent', 'Bergen', 'Trieste', 'Leipzig', 'Krakow', 'Lyon', 'Graz'];
const JOBS = ['nurse', 'carpenter', 'data analyst', 'pastry chef', 'pilot', 'teacher', 'architect', 'translator'];
const PETS = ['cat', 'dog', 'parrot', 'rabbit', 'tortoise'];
const PET_NAMES = ['Biscuit', 'Pepper', 'Noodle', 'Juniper', 'Marble', 'Waffles', 'Comet', 'Tofu'];
const PLACES = ['Iceland', 'Sicily', 'the Azores', 'Kyoto', 'Patagonia', 'Crete', 'the Dolomites', 'Morocco'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October'];

const SMALL_TALK_USER = [
  'The weather has been strange all week, sunny in the morning and pouring by the afternoon.',
  'I finally finished that long novel I was reading, and the ending was not what I expected.',
  'I tried a new recipe for lentil soup tonight and it came out far too salty.',
  'Work was slow today, mostly meetings that could have been emails.',
  'I went for a long walk along the river and watched the rowing teams practise.',
  'My back hurts a little from sitting at the desk all day, I should stretch more.',
  'I watched a documentary about deep sea creatures, some of them look like aliens.',
  'The coffee machine at the office broke again, so everyone was grumpy.',
  'I am thinking about repainting the kitchen, maybe a pale green this time.',
  'The train was late again this morning, the third time this week.',
  'I started learning to play the ukulele, my fingers are sore already.',
  'We had a power cut in the evening and ended up playing cards by candlelight.',
];
const SMALL_TALK_ASSISTANT = [
  'That sounds like quite a day. Is there anything you would like to plan for the weekend?',
  'I hope tomorrow is calmer. Small routines like a short walk can help a lot.',
  'That is interesting! Tell me more whenever you like.',
  'It happens to everyone now and then. What would make the rest of the week easier?',
  'Good to hear from you again. How are you feeling about it overall?',
  'That made me smile. Do you want me to remember anything from this for later?',
];

type Fact = { key: string; name: string; question: string; statements: { turn: number; sentence: string }[] };

/**
 * Generates a conversation of `sessions` sessions (each opening with its date) and about
 * `turnsPerSession` messages each, with facts spread across them and some updated later.
 */
export function generateChat(seed: number, sessions = 24, turnsPerSession = 14): GeneratedChat {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const messages: ModelMessage[] = [];
  const facts = new Map<string, Fact>();
  const people = NAMES.map((name) => ({ name, relation: pick(RELATIONS) }));
  const state = new Map<string, string>();

  const say = (user: string, assistant: string): number => {
    messages.push({ role: 'user', content: user }, { role: 'assistant', content: assistant });
    return messages.length - 2;
  };
  const record = (
    key: string,
    name: string,
    question: string,
    sentence: string,
    turn: number,
    update: boolean,
  ): void => {
    const fact = facts.get(key);
    if (fact && update) fact.statements.push({ turn, sentence });
    else if (!fact) facts.set(key, { key, name, question, statements: [{ turn, sentence }] });
  };

  const factTemplates = [
    (person: (typeof people)[number], update: boolean): [string, string, string] => {
      const city = pick(CITIES.filter((c) => c !== state.get(`city:${person.name}`)));
      state.set(`city:${person.name}`, city);
      return [
        `city:${person.name}`,
        `In which city does ${person.name} live now?`,
        update
          ? `Quick update on ${person.name}: she packed everything up again and now lives in ${city}.`
          : `My ${person.relation} ${person.name} lives in ${city}, right by the old harbour.`,
      ];
    },
    (person: (typeof people)[number], update: boolean): [string, string, string] => {
      const job = pick(JOBS.filter((j) => j !== state.get(`job:${person.name}`)));
      state.set(`job:${person.name}`, job);
      return [
        `job:${person.name}`,
        `What does ${person.name} do for work these days?`,
        update
          ? `${person.name} changed careers once more and is working as a ${job} now.`
          : `${person.name} started a new job as a ${job} last week.`,
      ];
    },
    (person: (typeof people)[number]): [string, string, string] => [
      `birthday:${person.name}`,
      `When is ${person.name}'s birthday?`,
      `${person.name}'s birthday is on ${pick(MONTHS)} ${1 + Math.floor(random() * 28)}, I must not forget it this year.`,
    ],
    (person: (typeof people)[number]): [string, string, string] => [
      `pet:${person.name}`,
      `What is the name of ${person.name}'s pet?`,
      `${person.name} adopted a ${pick(PETS)} called ${pick(PET_NAMES)} from the shelter.`,
    ],
    (person: (typeof people)[number], update: boolean): [string, string, string] => {
      const place = state.get(`trip:${person.name}`) ?? pick(PLACES);
      state.set(`trip:${person.name}`, place);
      const month = pick(MONTHS);
      return [
        `trip:${person.name}`,
        `In which month are ${person.name} and I going to ${place}?`,
        update
          ? `${person.name} and I moved our ${place} trip to ${month} because of the flights.`
          : `${person.name} and I are planning a trip to ${place} in ${month}.`,
      ];
    },
  ];
  const updatable = new Set([0, 1, 4]);

  for (let session = 0; session < sessions; session += 1) {
    const date = new Date(Date.UTC(2024, 0, 1) + session * 9 * 86_400_000).toISOString().slice(0, 10);
    say(`(New session, ${date}) Hi again! ${pick(SMALL_TALK_USER)}`, pick(SMALL_TALK_ASSISTANT));
    for (let exchange = 1; exchange < turnsPerSession / 2; exchange += 1) {
      if (random() < 0.3) {
        const person = pick(people);
        const which = Math.floor(random() * factTemplates.length);
        const template = factTemplates[which];
        if (!template) continue;
        const keyProbe = `${['city', 'job', 'birthday', 'pet', 'trip'][which]}:${person.name}`;
        const known = facts.has(keyProbe);
        // Facts that cannot change are stated once; the others may be updated in a later session.
        if (known && !updatable.has(which)) continue;
        const [key, question, sentence] = template(person, known);
        const turn = say(
          `${pick(SMALL_TALK_USER)} ${sentence}`,
          `Thanks for telling me about ${person.name}. I will keep that in mind.`,
        );
        record(key, person.name, question, sentence, turn, known);
      } else {
        const mention = random() < 0.25 ? ` ${pick(people).name} says hello, by the way.` : '';
        say(`${pick(SMALL_TALK_USER)}${mention}`, pick(SMALL_TALK_ASSISTANT));
      }
    }
  }
  // Questions on the latest statement of each fact; the updated ones first, as they are the harder ones.
  const all = [...facts.values()].sort((a, b) => b.statements.length - a.statements.length);
  const questions = all.slice(0, 16).map((fact) => {
    const latest = fact.statements[fact.statements.length - 1];
    return {
      question: fact.question,
      evidence: latest ? [latest.sentence] : [],
      evidenceTurns: latest ? [latest.turn] : [],
    };
  });
  return { messages, sessions, questions };
}
