/**
 * A seeded generator of long multi-session chats (about 10–20k tokens, several hundred messages) for measuring
 * history compression when the later question is not known. Each chat has dated sessions of small talk, tasks
 * the assistant answers at length (recipes, plans, drafts, troubleshooting steps, full of numbers and names of
 * their own), tangents, and facts the user (or, in support chats, the agent) says in passing: an allergy, a
 * flight number, a colleague's name, an account's limit. Some facts are superseded in a later session ("they
 * moved it to ..."), and the assistant restates some of them, right away or sessions later. Most facts are
 * asked about afterwards, in other words than they were said in; the rest are said and never asked, as in a
 * real chat.
 *
 * Four styles ({@link LONG_CHAT_DOMAINS}): a personal assistant, a work project, customer support and travel
 * planning, each with its own facts, tasks and small talk, so a whole style can be held out. Everything here,
 * names, places, codes and phrasing, is invented for the benchmark.
 */
import type { ModelMessage } from 'ai';
import { seededRandom } from 'pagewise/internal';

/** The styles of chat. */
export const LONG_CHAT_DOMAINS = ['personal', 'work', 'support', 'travel'] as const;

/** One style of chat. */
export type LongChatDomain = (typeof LONG_CHAT_DOMAINS)[number];

/** A fact of a chat, with every value it took, the latest last. */
export interface LongChatFact {
  /** What the fact is about (`allergy`, `flight`, ...), unique within the chat. */
  slot: string;
  /** The later question on it, in other words than it was stated in. */
  question: string;
  /** The values in the order they were stated; the last one is current. */
  values: string[];
  /** Indices of the messages that state or restate the latest value. */
  latestIn: number[];
  /** Indices of the messages that state an earlier value (empty unless superseded). */
  supersededIn: number[];
  /** Whether the fact is asked about later (graded); the others are said and never asked. */
  asked: boolean;
}

/** A generated chat. */
export interface LongChat {
  domain: LongChatDomain;
  seed: number;
  /** User and assistant messages, alternating; the last is the user's current message. */
  messages: ModelMessage[];
  sessions: number;
  facts: LongChatFact[];
}

type Random = () => number;

/** The recurring people and things of a chat, drawn once per chat. */
interface Cast {
  user: string;
  partner: string;
  child: string;
  friend: string;
  colleague: string;
  manager: string;
  pet: string;
  client: string;
  product: string;
  destination: string;
  companion: string;
}

/** A fact template: how its value is drawn, stated, superseded, restated by the assistant and asked about. */
interface FactSpec {
  slot: string;
  draw(random: Random, cast: Cast): string;
  /** User statements, the value said in passing. */
  say: readonly ((cast: Cast, value: string) => string)[];
  /** Statements that supersede the old value; absent for facts that do not change. */
  change?: readonly ((cast: Cast, value: string) => string)[];
  /** The assistant restating the value. */
  echo: readonly ((cast: Cast, value: string) => string)[];
  ask: readonly ((cast: Cast) => string)[];
  /** Said by the assistant instead of the user (a case number the support agent gives). */
  byAssistant?: boolean;
}

/** A task the user asks for and the assistant answers at length. */
type Task = (random: Random, cast: Cast) => { request: string; answer: string; followUp?: [string, string] };

interface DomainSpec {
  facts: readonly FactSpec[];
  tasks: readonly Task[];
  /** Lines of small talk of this style, besides the shared ones. */
  smallTalk: readonly string[];
  /** Replies of this style to small talk, besides the shared ones; only these with `ownRepliesOnly`. */
  replies: readonly string[];
  ownRepliesOnly?: boolean;
  tangents: readonly [string, string][];
  /** Words opening a session, after its date. */
  openers: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Value pools

const FIRST = [
  'Maya',
  'Tomas',
  'Priya',
  'Jonas',
  'Lena',
  'Omar',
  'Keiko',
  'Rafael',
  'Ingrid',
  'Dario',
  'Amara',
  'Felix',
  'Sofia',
  'Mateo',
  'Hana',
  'Yusuf',
  'Clara',
  'Nikolai',
  'Zara',
  'Elio',
  'Greta',
  'Tariq',
  'Noor',
  'Viktor',
  'Ines',
  'Kofi',
  'Mirela',
  'Anders',
  'Lucia',
  'Bastian',
  'Oona',
  'Ravi',
];
const LAST = [
  'Okafor',
  'Lindqvist',
  'Moreau',
  'Castellanos',
  'Nakamura',
  'Brandt',
  'Oyelaran',
  'Kowalczyk',
  'Haddad',
  'Rasmussen',
  'Ferreira',
  'Iyer',
  'Delacroix',
  'Vasquez',
  'Thorsen',
  'Mbeki',
  'Albescu',
  'Quintero',
  'Hollis',
  'Sandoval',
  'Achterberg',
  'Petrakis',
  'Wexler',
  'Ballard',
];
const PETS = ['Biscuit', 'Pepper', 'Noodle', 'Juniper', 'Marble', 'Waffles', 'Comet', 'Tofu', 'Mochi', 'Pistachio'];
const CLIENTS = ['Harbourline', 'Novaterra', 'Quillfield', 'Brightmoor', 'Aldergate', 'Sunvale Foods', 'Corvid Labs'];
const PRODUCTS = ['Ledgerly', 'Waypoint', 'Tidepool', 'Beacon', 'Orchard', 'Keystone'];
const DESTINATIONS = ['Lisbon', 'Kyoto', 'Reykjavik', 'Oaxaca', 'Tbilisi', 'Hobart', 'Trieste', 'Cartagena', 'Bergen'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const pickOf = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const intIn = (random: Random, low: number, high: number): number => low + Math.floor(random() * (high - low + 1));
const letters = (random: Random, count: number): string =>
  Array.from({ length: count }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ'[intIn(random, 0, 23)]).join('');
const money = (amount: number): string => `$${amount.toLocaleString('en-US')}`;
const clock = (random: Random): string => {
  const hour = intIn(random, 7, 19);
  const minute = pickOf(random, ['00', '15', '20', '30', '40', '45', '50']);
  return `${hour > 12 ? hour - 12 : hour}:${minute} ${hour >= 12 ? 'pm' : 'am'}`;
};
const dayOfYear = (random: Random): string => `${pickOf(random, MONTHS)} ${intIn(random, 2, 28)}`;
const person = (random: Random): string => `${pickOf(random, FIRST)} ${pickOf(random, LAST)}`;

// ---------------------------------------------------------------------------------------------
// Shared small talk and tangents

const WHEN = [
  'This morning',
  'Yesterday',
  'Last night',
  'Today',
  'Over the weekend',
  'Earlier',
  'After work',
  'On Sunday',
];
const HAPPENINGS = [
  'the weather was strange, sunny one minute and pouring the next',
  'I finally finished that long novel, and the ending was not what I expected at all',
  'I slept badly, the neighbours had some kind of party going until late',
  'I went for a long walk along the river and watched the rowing teams practise',
  'my back was stiff from sitting all day, I really should stretch more',
  'I watched a documentary about deep sea creatures, some of them look like aliens',
  'I started thinking about repainting the hallway, maybe a pale green',
  'the train was late again, third time this week',
  'I practised the ukulele for an hour and my fingertips are sore',
  'we had a power cut and ended up playing cards by candlelight',
  'I tried the new bakery on the corner, the cardamom buns are dangerously good',
  'my phone battery died in the middle of a call, it is getting worse',
  'I spent hours sorting old photos, found some from when I was a kid',
  'it was warm enough to sit outside with a coffee',
  'I did nothing but emails and laundry',
  'I fixed the wobbly kitchen chair with some glue and a lot of swearing',
  'I got caught in the rain without an umbrella, soaked to the bone',
  'I cooked a huge pot of soup and froze half of it',
  'the cat from next door came in through the window again',
  'I binge-watched a whole season of that detective show',
  'I cleaned out the fridge and found things I do not want to talk about',
  'a friend sent me a playlist and I have had it on repeat',
  'I forgot my keys and had to wait outside for ages',
  'I finally booked a haircut, it has been months',
  'the heating made that clanking noise again',
  'I tried a yoga video and could not keep up at all',
  'I walked past the old cinema, they are turning it into flats',
  'my sourdough starter actually bubbled for once',
];
const NUMBERED_HAPPENINGS: readonly ((random: Random) => string)[] = [
  (random) => `I ran ${intIn(random, 3, 12)} km, slowly but without stopping`,
  (random) => `the match ended ${intIn(random, 0, 4)}-${intIn(random, 0, 4)}, what a game`,
  (random) => `I paid ${money(intIn(random, 4, 9))} for a coffee, which is getting ridiculous`,
  (random) => `I did ${intIn(random, 8, 15)},000 steps without even trying`,
  (random) => `the bus took ${intIn(random, 35, 70)} minutes for a 10-minute ride`,
  (random) => `I read ${intIn(random, 40, 120)} pages in one go`,
];
const VENUES = [
  'the Blue Door café',
  "Marlow's",
  'Taverna Thalassa',
  'the Nook',
  'Café Ombra',
  'Bistro Verde',
  'The Old Ferry',
  'Pho Mai',
  'Kasbah Grill',
  'Noodle Bar 88',
];
/** Names of people small talk mentions, none of them a name a fact can take. */
const PASSING_NAMES = [
  'Beatrix',
  'Caspian',
  'Delphine',
  'Emeric',
  'Florentyna',
  'Gideon',
  'Henrike',
  'Ismay',
  'Jarek',
  'Kalinda',
  'Leopold',
  'Marisol',
  'Nerys',
  'Oswin',
  'Perpetua',
  'Quentin',
  'Rosalind',
  'Severin',
  'Thea',
  'Ulrich',
];
const passerby = (random: Random): string => `${pickOf(random, PASSING_NAMES)} ${pickOf(random, LAST)}`;
const RELATIVES = ['aunt', 'cousin', 'uncle', 'grandmother', 'brother-in-law', 'godmother'];
/**
 * Happenings with specifics of their own (a name, a time, an amount, a code), said in passing and never asked
 * about, as a real chat is full of them; each value is drawn through `fresh`, so it never equals a fact's value.
 */
const DETAILED_HAPPENINGS: readonly ((random: Random, fresh: (make: () => string) => string) => string)[] = [
  (random, fresh) =>
    `I had lunch with ${fresh(() => passerby(random))} from my old job at ${fresh(() => pickOf(random, VENUES))}`,
  (random, fresh) => `I bumped into ${fresh(() => passerby(random))} at the farmers market, we had not talked in years`,
  (random, fresh) =>
    `my ${pickOf(random, RELATIVES)} ${fresh(() => pickOf(random, PASSING_NAMES))} called at ${fresh(() => clock(random))} and we talked for an hour`,
  (random, fresh) =>
    `I booked a table at ${fresh(() => pickOf(random, VENUES))} for ${pickOf(random, WEEKDAYS)} at ${fresh(() => clock(random))}, just for fun`,
  (random, fresh) =>
    `the electrician came at ${fresh(() => clock(random))} and charged ${fresh(() => money(intIn(random, 60, 390)))}`,
  (random, fresh) => `I finally paid that ${fresh(() => money(intIn(random, 25, 180)))} parking fine`,
  (random, fresh) =>
    `the new neighbours, ${fresh(() => pickOf(random, PASSING_NAMES))} and ${fresh(() => pickOf(random, PASSING_NAMES))}, invited us over for drinks`,
  (random, fresh) =>
    `a parcel came with tracking number ${fresh(() => `${letters(random, 2)}${intIn(random, 100000000, 999999999)}`)}, no idea what it is`,
  (random, fresh) =>
    `I signed up for a ${intIn(random, 4, 12)}-week course at the community centre, ${fresh(() => money(intIn(random, 40, 250)))} in total`,
  (random, fresh) =>
    `my old friend ${fresh(() => passerby(random))} is moving to ${pickOf(random, DESTINATIONS)} for work`,
  (random, fresh) =>
    `I got a quote of ${fresh(() => money(intIn(random, 300, 4000)))} to fix the roof, which seems steep`,
  (random, fresh) =>
    `the gym changed my membership number to ${fresh(() => String(intIn(random, 100000, 999999)))} for some reason`,
];
const REACTIONS = [
  '.',
  ', which was a bit annoying.',
  ', and honestly it made my day.',
  '. Nothing exciting otherwise.',
  ', so that was my big adventure.',
  ', not sure how I feel about it.',
  '. Anyway.',
  ', typical.',
];
/** A line of small talk, put together from parts so that a long chat does not repeat itself much. */
function smallTalkLine(random: Random, fresh: (make: () => string) => string): string {
  const kind = random();
  const happening =
    kind < 0.5
      ? pickOf(random, DETAILED_HAPPENINGS)(random, fresh)
      : kind < 0.62
        ? pickOf(random, NUMBERED_HAPPENINGS)(random)
        : pickOf(random, HAPPENINGS);
  return `${pickOf(random, WHEN)} ${happening}${pickOf(random, REACTIONS)}`;
}
const REPLY_OPENINGS = [
  'That sounds like quite a day.',
  'Oh no, that is annoying.',
  'That is nice to hear!',
  'Ha, that made me smile.',
  'It happens to everyone now and then.',
  'Sounds like you earned a slow evening.',
  'Good to hear from you again.',
  'Fair enough.',
];
const REPLY_FOLLOWS = [
  'Anything you would like to plan for the rest of the week?',
  'Small routines like a short walk can help a lot.',
  'Tell me more whenever you like.',
  'Is there something that would make the week easier?',
  'How are you feeling about it overall?',
  'Let me know if I can help with anything today.',
  'Anything on your list I can take off your hands?',
  'Hopefully it sorts itself out soon.',
];
/** An assistant's reply to small talk, from parts. */
function replyLine(random: Random): string {
  return `${pickOf(random, REPLY_OPENINGS)} ${pickOf(random, REPLY_FOLLOWS)}`;
}
const ACKS: readonly [string, string][] = [
  ['Thanks, that is perfect.', 'Glad it helps! Just let me know if you want any changes.'],
  ['Great, thank you!', 'You are welcome. Happy to help.'],
  ['Can you make it a bit shorter?', 'Sure, here is a tighter version with only the essentials kept in.'],
  ['Ok, I will go with that.', 'Sounds good. Let me know how it turns out.'],
  ['Hmm, not sure yet, I will think about it.', 'Of course, take your time. It will be here when you need it.'],
];
const TANGENTS: readonly [string, string][] = [
  [
    'Random question: how long should I boil an egg for a runny yolk?',
    'For a runny yolk, lower the egg into boiling water and cook it for about 6 minutes, then cool it in cold water for 1 minute. At 7 minutes the yolk is jammy, and at 9 to 10 minutes it is fully set.',
  ],
  [
    'Why is the sky blue, actually? My niece asked and I had no idea.',
    'Sunlight is scattered by the molecules of the air, and shorter wavelengths scatter much more than longer ones (about 5.5 times more for blue at 450 nm than for red at 700 nm). So blue light reaches your eyes from every direction of the sky.',
  ],
  [
    'How much water should a person drink in a day, roughly?',
    'A common guide is about 2.7 litres a day for women and 3.7 litres for men from all drinks and food, with about 20% coming from food. Needs go up with heat and exercise, and thirst is a reasonable guide for most healthy adults.',
  ],
  [
    'What is the difference between baking soda and baking powder?',
    'Baking soda is pure sodium bicarbonate and needs an acid (buttermilk, yoghurt, lemon) to react. Baking powder already contains an acid, so it works with neutral liquids; roughly 1 teaspoon of baking powder does the work of 1/4 teaspoon of soda.',
  ],
  [
    'Is it true that you lose most heat through your head?',
    'Not really. The idea goes back to a 1950s army study in which only the head was uncovered. The head accounts for roughly 7 to 10% of body surface, and it loses heat in about that proportion.',
  ],
  [
    'How far away is the moon again?',
    'On average about 384,400 km, varying between roughly 363,300 km at perigee and 405,500 km at apogee. Light takes about 1.3 seconds to cover it.',
  ],
  [
    'Quick one: how many tablespoons are in a cup?',
    'In US measures there are 16 tablespoons in a cup, and 3 teaspoons in a tablespoon. A metric cup is 250 ml, a little more than the US cup of about 237 ml.',
  ],
  [
    'Do plants really grow better if you talk to them?',
    'There is a little evidence that vibration and the carbon dioxide in breath can affect growth, but the effects in studies are small. Light, water, soil and temperature matter far more.',
  ],
];

// ---------------------------------------------------------------------------------------------
// Domains

const PERSONAL: DomainSpec = {
  openers: ['Hi again!', 'Morning!', 'Hey, me again.', 'Evening!', 'Hello hello.'],
  smallTalk: [
    'The kids were impossible to get out of bed this morning.',
    'We finally cleared out the garage this weekend, it took forever.',
    'Thinking of signing up for a pottery class, it looks relaxing.',
  ],
  replies: [],
  tangents: TANGENTS,
  facts: [
    {
      slot: 'allergy',
      draw: (random) => pickOf(random, ['sesame', 'shellfish', 'kiwi', 'buckwheat', 'mustard seeds', 'lupin flour']),
      say: [
        (cast, value) =>
          `${cast.child} had a reaction at a birthday party, and the doctor confirmed ${cast.child} is allergic to ${value}.`,
        (cast, value) =>
          `Oh, and for any recipes: ${cast.child} cannot have ${value}, we found out the hard way last year.`,
      ],
      echo: [
        (cast, value) => `Noted: ${cast.child} is allergic to ${value}, so I will keep it out of anything I suggest.`,
      ],
      ask: [(cast) => `Which food does ${cast.child} have to stay away from?`],
    },
    {
      slot: 'dentist',
      draw: (random) => clock(random),
      say: [
        (_, value) => `I booked the dentist for next Thursday at ${value}, hopefully just a check-up.`,
        (_, value) => `Dentist is on Thursday at ${value}, remind me to leave work early.`,
      ],
      change: [
        (_, value) => `The dental office called, they had to move my appointment to ${value} on the same day.`,
        (_, value) => `Small change: my dentist slot is now ${value} instead.`,
      ],
      echo: [(_, value) => `Got it, the dentist appointment is at ${value}.`],
      ask: [() => 'What time do I have to be at the dentist?'],
    },
    {
      slot: 'bike-room code',
      draw: (random) => String(intIn(random, 2000, 9899)),
      say: [
        (_, value) => `The building manager finally gave me the code for the bike room, it is ${value}.`,
        (_, value) => `Writing this down somewhere: bike storage door code ${value}.`,
      ],
      change: [(_, value) => `They changed the bike room code after the break-in, the new one is ${value}.`],
      echo: [(_, value) => `I will remember the bike room code, ${value}.`],
      ask: [() => 'How do I get into the room where I keep my bike?'],
    },
    {
      slot: 'partner birthday',
      draw: (random) => dayOfYear(random),
      say: [
        (cast, value) => `${cast.partner}'s birthday is on ${value} and I have zero gift ideas yet.`,
        (cast, value) => `I need to plan something for ${value}, that is ${cast.partner}'s birthday.`,
      ],
      echo: [
        (cast, value) => `${cast.partner}'s birthday on ${value}, got it. We can brainstorm gifts closer to the date.`,
      ],
      ask: [(cast) => `When do we celebrate ${cast.partner} turning a year older?`],
    },
    {
      slot: 'doctor',
      draw: (random) => `Dr. ${pickOf(random, LAST)}`,
      say: [
        (_, value) => `I switched GPs, my new family doctor is ${value} at the clinic on the high street.`,
        (_, value) => `Saw ${value} today, she is my new GP and actually listens, which is a nice change.`,
      ],
      echo: [(_, value) => `Good to hear that ${value} is working out as your new doctor.`],
      ask: [() => 'Who is my family doctor now?'],
    },
    {
      slot: 'card limit',
      draw: (random) => money(intIn(random, 12, 90) * 250),
      say: [
        (_, value) => `The bank approved the increase, my credit card limit is ${value} now.`,
        (_, value) => `Just checked, my card's limit is ${value}, so the sofa should be fine.`,
      ],
      change: [
        (_, value) => `Update on the card: they lowered the limit to ${value} after the review, annoying.`,
        (_, value) => `The bank bumped my credit limit again, it is ${value} as of this week.`,
      ],
      echo: [
        (_, value) => `So your card limit is ${value} now, that is worth keeping in mind for the bigger purchases.`,
      ],
      ask: [() => 'How much can I put on my credit card at most?'],
    },
    {
      slot: 'teacher',
      draw: (random) => `${pickOf(random, ['Ms', 'Mr'])} ${pickOf(random, LAST)}`,
      say: [
        (cast, value) => `Met ${cast.child}'s new teacher at the school gate, ${value}, seems lovely.`,
        (cast, value) => `${cast.child}'s class teacher this year is ${value}, apparently very strict about homework.`,
      ],
      echo: [(cast, value) => `${value} as ${cast.child}'s teacher, noted.`],
      ask: [(cast) => `Who is teaching ${cast.child}'s class this year?`],
    },
    {
      slot: 'plumber',
      draw: (random) => `07${intIn(random, 100, 999)} ${intIn(random, 100000, 999999)}`,
      say: [
        (_, value) => `If the boiler acts up again, the plumber who fixed it last time is on ${value}.`,
        (_, value) => `Saving the plumber's mobile here so I do not lose it: ${value}.`,
      ],
      echo: [(_, value) => `I have the plumber's number, ${value}, in case you need it again.`],
      ask: [() => 'What number do I call if the boiler breaks again?'],
    },
    {
      slot: 'parking space',
      draw: (random) => `${letters(random, 1)}-${intIn(random, 101, 399)}`,
      say: [(_, value) => `We got a space in the new garage at last, ours is ${value} on the lower level.`],
      change: [(_, value) => `They reassigned the parking spaces, ours is ${value} from now on.`],
      echo: [(_, value) => `Your parking space is ${value}.`],
      ask: [() => 'Which space in the garage is ours?'],
    },
    {
      slot: 'vet clinic',
      draw: (random) => `${pickOf(random, ['Larkspur', 'Fernhill', 'Maplewood', 'Cobblestone', 'Riverbend'])} Vets`,
      say: [
        (cast, value) =>
          `${cast.pet} has a check-up at ${value} next month, they are the only ones ${cast.pet} does not bite.`,
        (cast, value) => `We moved ${cast.pet} to ${value}, the old vet was always fully booked.`,
      ],
      echo: [(cast, value) => `${cast.pet} goes to ${value}, noted.`],
      ask: [(cast) => `Where do we take ${cast.pet} for check-ups?`],
    },
    {
      slot: 'vitamin dose',
      draw: (random) => `${pickOf(random, [800, 1000, 1200, 1500, 2000, 2500, 4000])} IU`,
      say: [(_, value) => `The doctor wants me on vitamin D over the winter, ${value} every morning with breakfast.`],
      change: [(_, value) => `Blood test came back better, so the vitamin D goes down to ${value} a day.`],
      echo: [(_, value) => `Vitamin D at ${value} a day, I will keep that in mind.`],
      ask: [() => 'How much of my winter supplement am I supposed to take?'],
    },
    {
      slot: 'insurance policy',
      draw: (random) => `POL-${intIn(random, 100000, 999999)}`,
      say: [(_, value) => `Found the home insurance papers at last, the policy number is ${value}.`],
      echo: [(_, value) => `Home insurance policy ${value}, saved.`],
      ask: [() => 'What is the reference of our home insurance?'],
    },
    {
      slot: 'restaurant',
      draw: (random) =>
        pickOf(random, ['Casa Lupita', 'The Copper Kettle', 'Osteria Fiore', 'Little Saigon House', 'Brasserie Lune']),
      say: [
        (cast, value) => `${cast.partner}'s favourite place is ${value}, we went there on our first date.`,
        (cast, value) => `If I ever need a safe choice for dinner, ${cast.partner} always loves ${value}.`,
      ],
      echo: [(cast, value) => `${value} is ${cast.partner}'s favourite, good to know for special occasions.`],
      ask: [(cast) => `Where should I book if I want to take ${cast.partner} somewhere they love?`],
    },
  ],
  tasks: [
    (random) => {
      const dish = pickOf(random, ['lentil curry', 'lemon chicken traybake', 'mushroom risotto', 'veggie chilli']);
      return {
        request: `Can you give me an easy recipe for ${dish} for ${intIn(random, 3, 6)} people? Nothing fancy.`,
        answer: `Here is a simple ${dish}:\n- ${intIn(random, 2, 5)}00 g of the main ingredient, cut into bite-sized pieces\n- 1 large onion and ${intIn(random, 2, 4)} cloves of garlic\n- ${intIn(random, 1, 2)} tins of chopped tomatoes (400 g each)\n- ${intIn(random, 1, 3)} teaspoons of spices to taste\nSoften the onion for ${intIn(random, 5, 9)} minutes, add the garlic and spices for 1 minute, then the rest. Simmer for ${intIn(random, 20, 35)} minutes, or bake at ${pickOf(random, [180, 190, 200])}°C for about ${intIn(random, 30, 45)} minutes. It keeps for 3 days in the fridge.`,
        followUp: pickOf(random, ACKS),
      };
    },
    (random) => ({
      request: 'Could you help me draft a short message to the neighbours about the noise on weekends?',
      answer: `Of course. Here is a friendly draft:\n\n"Hi all, hope you are well! A small request: could we keep the music down after ${intIn(random, 10, 11)} pm on weekends? The walls are thinner than they look and the little ones wake up easily. Thanks so much, and do knock if anything bothers you on our side too."\n\nYou can slip it under the doors or post it in the building chat.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'I want to get back into running. Can you make me a plan for the next few weeks?',
      answer: `Here is a gentle ${intIn(random, 4, 6)}-week plan, three runs a week:\n1. Week 1: alternate 1 minute running and 2 minutes walking, ${intIn(random, 6, 8)} times.\n2. Week 2: 2 minutes running, 2 minutes walking, 6 times.\n3. Week 3: 5 minutes running, 2 walking, 4 times.\n4. Week 4: ${intIn(random, 10, 15)} minutes running, 3 walking, twice.\nKeep the pace conversational, rest a day between runs, and add about 10% a week at most.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'We need a shopping list for the week, we eat mostly vegetarian. Can you put one together?',
      answer: `Here is a list for about ${intIn(random, 5, 7)} dinners:\n- Vegetables: 2 kg potatoes, 1 kg carrots, 3 peppers, 2 courgettes, spinach, 6 onions\n- Protein: ${intIn(random, 2, 4)} tins of chickpeas, 500 g lentils, a dozen eggs, 400 g tofu\n- Dairy: 1 litre milk, Greek yoghurt, 200 g feta\n- Cupboard: rice, pasta, oats, tinned tomatoes, stock cubes\n- Fruit: bananas, apples, a bag of frozen berries\nThat should come to roughly ${money(intIn(random, 55, 90))} at a regular supermarket.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'Can you suggest something to do with the kids on a rainy Saturday?',
      answer: `A few ideas that usually work:\n1. A blanket fort and a film marathon, with popcorn made together.\n2. The science museum (most have free entry before ${intIn(random, 10, 11)} am).\n3. Baking cookies: ${intIn(random, 200, 250)} g flour, 100 g butter, 80 g sugar, one egg, ${intIn(random, 10, 14)} minutes at 180°C.\n4. An indoor treasure hunt with ${intIn(random, 8, 12)} clues around the flat.\n5. The library, many run a story hour on Saturdays.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'How should I budget for the month? We keep overspending on small stuff.',
      answer: `One simple way is the 50/30/20 split: about 50% of take-home pay for needs (rent, bills, groceries), 30% for wants and 20% for savings or debt. On a take-home of ${money(intIn(random, 28, 45) * 100)}, that is roughly ${money(intIn(random, 14, 22) * 100)} for needs. Track the small purchases for ${intIn(random, 2, 4)} weeks first: coffee and delivery fees tend to add up to ${money(intIn(random, 80, 200))} or more without anyone noticing.`,
      followUp: pickOf(random, ACKS),
    }),
  ],
};

const WORK: DomainSpec = {
  openers: ['Morning.', 'Hi!', 'Back at it.', 'Hey, quick session before my next meeting.', 'Hello again.'],
  smallTalk: [
    'Meetings all morning, I have barely written a line of anything.',
    'The office coffee machine broke again so everyone is grumpy.',
    'Had a nice lunch with the team today, we should do that more often.',
    "I keep getting pulled into other people's fires this week.",
  ],
  replies: [],
  tangents: TANGENTS,
  facts: [
    {
      slot: 'qa lead',
      draw: (random) => person(random),
      say: [
        (_, value) => `Oh, we finally have a QA lead, ${value}, who joins from the payments team.`,
        (_, value) => `Heads up, ${value} is taking over QA for the project, so test plans go through them now.`,
      ],
      change: [(_, value) => `Reorg news: QA for us moves to ${value} starting next sprint.`],
      echo: [(_, value) => `Good to know, ${value} owns QA now.`],
      ask: [() => 'Who signs off on testing for the project?'],
    },
    {
      slot: 'launch date',
      draw: (random) => dayOfYear(random),
      say: [
        (cast, value) =>
          `${cast.manager} confirmed the launch of ${cast.product} for ${value}, so everything is planned back from that.`,
        (cast, value) => `We are aiming to ship ${cast.product} on ${value}, assuming nothing explodes.`,
      ],
      change: [
        (_, value) => `Well, the launch slipped, the new date is ${value}. Legal needs more time on the terms.`,
        (_, value) => `Launch moved again, it is ${value} now, and this time it is final apparently.`,
      ],
      echo: [(cast, value) => `So ${cast.product} launches on ${value}.`],
      ask: [(cast) => `When does ${cast.product} go live?`],
    },
    {
      slot: 'budget',
      draw: (random) => money(intIn(random, 40, 400) * 1000),
      say: [
        (cast, value) => `Finance signed off on ${value} for the ${cast.product} work this year.`,
        (_, value) => `The total budget we got is ${value}, which is less than we asked for.`,
      ],
      change: [(_, value) => `Budget update: after the review they cut us down to ${value}.`],
      echo: [(_, value) => `A budget of ${value}, understood.`],
      ask: [() => 'How much money do we have for the project?'],
    },
    {
      slot: 'bug ticket',
      draw: (random) => `${pickOf(random, ['PAY', 'CORE', 'WEB', 'API'])}-${intIn(random, 1000, 9999)}`,
      say: [
        (_, value) => `The crash on checkout is tracked as ${value}, I am assigned to it unfortunately.`,
        (_, value) => `Spent the afternoon on ${value}, that intermittent timeout in the checkout flow.`,
      ],
      echo: [(_, value) => `${value}, the checkout crash, noted.`],
      ask: [() => 'What is the ticket for the checkout crash I am fixing?'],
    },
    {
      slot: 'staging host',
      draw: (random) => `stg-${pickOf(random, ['eu', 'us', 'ap'])}-${intIn(random, 10, 99)}`,
      say: [(_, value) => `Staging lives on ${value} now, they migrated it over the weekend.`],
      change: [(_, value) => `Ops moved staging again, it is on ${value} as of today.`],
      echo: [(_, value) => `Staging is on ${value}.`],
      ask: [() => 'Which machine is our staging environment on?'],
    },
    {
      slot: 'standup time',
      draw: (random) => clock(random),
      say: [(_, value) => `Standup is at ${value} every day, which is way too early for me.`],
      change: [
        (_, value) => `Actually, we moved standup to ${value} so the people in the other office can join.`,
        (_, value) => `Standup changes again, ${value} from Monday on.`,
      ],
      echo: [(_, value) => `Standup at ${value}, got it.`],
      ask: [() => 'When is the daily team meeting?'],
    },
    {
      slot: 'client contact',
      draw: (random) => person(random),
      say: [
        (cast, value) =>
          `Our main contact at ${cast.client} is ${value}, very responsive, usually answers within the hour.`,
        (cast, value) => `I had a call with ${value} from ${cast.client}, they will be our point person from now on.`,
      ],
      change: [(cast, value) => `${cast.client} changed our point of contact, it is ${value} now.`],
      echo: [(cast, value) => `${value} at ${cast.client}, noted.`],
      ask: [(cast) => `Who do I talk to at ${cast.client}?`],
    },
    {
      slot: 'release branch',
      draw: (random) => `release/${intIn(random, 2, 6)}.${intIn(random, 0, 19)}`,
      say: [(_, value) => `We cut the release branch this morning, it is ${value}, so only fixes go there now.`],
      echo: [(_, value) => `Fixes go to ${value}, understood.`],
      ask: [() => 'Which branch do the fixes for the release go into?'],
    },
    {
      slot: 'latency target',
      draw: (random) => `${intIn(random, 8, 40) * 10} ms`,
      say: [(_, value) => `The target we agreed on is p95 latency under ${value} for the search endpoint.`],
      change: [(_, value) => `They tightened the latency goal, p95 has to stay under ${value} now.`],
      echo: [(_, value) => `A p95 target of ${value}, okay.`],
      ask: [() => 'How fast does the search endpoint have to be?'],
    },
    {
      slot: 'vendor quote',
      draw: (random) => money(intIn(random, 12, 95)),
      say: [(cast, value) => `The vendor quoted ${value} per seat per month for the tool ${cast.manager} wants.`],
      change: [(_, value) => `We negotiated the vendor down to ${value} a seat.`],
      echo: [(_, value) => `${value} per seat, noted.`],
      ask: [() => 'What does the vendor charge per user?'],
    },
    {
      slot: 'on-call week',
      draw: (random) => dayOfYear(random),
      say: [(_, value) => `I am on call the week starting ${value}, so no plans that week.`],
      change: [(_, value) => `Swapped on-call with someone, my week now starts ${value}.`],
      echo: [(_, value) => `On call from ${value}, noted.`],
      ask: [() => 'When is my next on-call week?'],
    },
    {
      slot: 'retro room',
      draw: (random) => `${intIn(random, 2, 9)}${letters(random, 1)}-${intIn(random, 10, 40)}`,
      say: [(_, value) => `Retros are in room ${value} from now on, the big one with the whiteboard wall.`],
      echo: [(_, value) => `Room ${value} for retros.`],
      ask: [() => 'Where do we hold the retrospectives?'],
    },
  ],
  tasks: [
    (random, cast) => ({
      request: `Can you help me write the weekly status update for ${cast.product}?`,
      answer: `Here is a draft:\n\n**${cast.product}: week ${intIn(random, 10, 48)}**\n- Done: search filters shipped to ${intIn(random, 10, 50)}% of users, ${intIn(random, 3, 9)} bugs closed.\n- In progress: the export feature (about ${intIn(random, 40, 80)}% done), the onboarding redesign.\n- Risks: the payment provider's API changes on the 1st; we need ${intIn(random, 2, 4)} more days of testing.\n- Asks: a decision on the pricing page copy by Friday.\n\nAdjust the percentages to what the board shows.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'How do I explain to non-engineers why the refactor takes so long?',
      answer: `An analogy often helps: the code is a house where every room was added in a hurry, and the refactor is rewiring it while people live in it. Concretely: about ${intIn(random, 30, 60)}% of our time on each feature goes to working around old code; the refactor takes ${intIn(random, 4, 8)} weeks and should cut that roughly in half. Show one example: a change that took ${intIn(random, 5, 12)} days and would take ${intIn(random, 1, 3)} after.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'Can you give me a checklist for reviewing a pull request properly?',
      answer: `A checklist I would use:\n1. Read the description and the linked ticket first; what problem does it solve?\n2. Run it locally if it changes behaviour.\n3. Check the tests cover the new paths, including errors.\n4. Look for names that say what things are, and comments that say why.\n5. Watch for changes over ${intIn(random, 300, 500)} lines: ask to split them.\n6. Check migrations and config changes twice.\n7. Be kind and specific; suggest, do not command.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'Help me plan the agenda for a one-hour planning meeting.',
      answer: `A one-hour agenda:\n- 0:00 to 0:05: goal of the sprint in one sentence.\n- 0:05 to 0:20: review the top ${intIn(random, 8, 15)} backlog items, estimate the unclear ones.\n- 0:20 to 0:40: capacity (holidays, on-call) and commitments, about ${intIn(random, 25, 45)} points.\n- 0:40 to 0:50: risks and dependencies on other teams.\n- 0:50 to 1:00: owners and next steps.\nShare the backlog a day before so people come prepared.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'What is a good way to estimate how long the data migration will take?',
      answer: `Time a sample first: migrate ${intIn(random, 1, 5)}% of the rows on a copy and measure. If ${intIn(random, 100, 900)},000 rows take ${intIn(random, 3, 12)} minutes, the full table of ${intIn(random, 20, 90)} million scales roughly linearly, plus index rebuilds (often 20 to 40% more). Add a margin of 1.5x for production load, and plan a rollback window of the same length.`,
      followUp: pickOf(random, ACKS),
    }),
  ],
};

const SUPPORT: DomainSpec = {
  openers: [
    'Hi, I am back about my account.',
    'Hello, it is me again.',
    'Hi there.',
    'Good afternoon.',
    'Hey, quick follow-up.',
  ],
  smallTalk: [
    'Sorry for the wait, I was on the other line.',
    'Thanks for being patient with me, I am not very technical.',
    'It has been a long week, this is the last thing on my list.',
    'I tried calling first but the line was busy for ages.',
    'The weather is awful here, so at least I have time to sort this out.',
    'I am typing on my phone so sorry for any typos.',
    'My kid is yelling in the background, give me a second.',
    'Honestly the app used to be much easier to use.',
    'I appreciate the help, the last time was a bit of a mess.',
    'Just got back from work, let me find the papers.',
  ],
  ownRepliesOnly: true,
  replies: [
    'No problem at all, take your time.',
    'Thanks for your patience, I am here to help.',
    'I understand, let us get this sorted for you.',
    'Of course. Is there anything else on your mind while we are at it?',
    'Happy to help. What would you like to look at next?',
    'Sorry about the trouble. We will figure it out together.',
  ],
  tangents: TANGENTS.slice(0, 4),
  facts: [
    {
      slot: 'order number',
      draw: (random) => `W${intIn(random, 1000000, 9999999)}`,
      say: [
        (_, value) => `The order with the broken kettle is ${value}, it arrived yesterday.`,
        (_, value) => `It is about order ${value}, the one with the cracked lid.`,
      ],
      echo: [(_, value) => `Thanks, I can see order ${value} on your account.`],
      ask: [() => 'Which order was the damaged kettle in?'],
    },
    {
      slot: 'transfer limit',
      draw: (random) => money(intIn(random, 4, 60) * 500),
      say: [(_, value) => `My daily transfer limit is ${value} at the moment, which is not enough for the deposit.`],
      change: [(_, value) => `Right, so the limit is raised to ${value} per day now, perfect.`],
      echo: [(_, value) => `I have set your daily transfer limit to ${value}; it takes effect within the hour.`],
      ask: [() => 'How much am I allowed to send per day now?'],
    },
    {
      slot: 'shipping address',
      draw: (random) =>
        `${intIn(random, 2, 98)} ${pickOf(random, ['Alder', 'Rowan', 'Quarry', 'Mill', 'Chapel', 'Heron', 'Linden'])} ${pickOf(random, ['Lane', 'Road', 'Close', 'Street', 'Way'])}`,
      say: [(_, value) => `Please send everything to ${value}, that is my home address.`],
      change: [
        (_, value) => `We moved last month, so the address on file should be ${value} now.`,
        (_, value) => `Actually, can the replacement go to ${value}? I am staying there for a while.`,
      ],
      echo: [(_, value) => `I have updated the delivery address to ${value}.`],
      ask: [() => 'Where should parcels for me be delivered?'],
    },
    {
      slot: 'plan',
      draw: (random) =>
        `${pickOf(random, ['Essentials', 'Family Plus', 'Unlimited Lite', 'Flex'])} ${pickOf(random, [10, 20, 30, 40, 60, 80])}GB`,
      say: [(_, value) => `I am on the ${value} plan, if that matters for the roaming question.`],
      change: [(_, value) => `Okay, let us do it, switch me to ${value} from next month.`],
      echo: [(_, value) => `Your plan is now ${value}.`],
      ask: [() => 'Which mobile package do I have?'],
    },
    {
      slot: 'phone model',
      draw: (random) =>
        pickOf(random, ['Pixel 7a', 'Galaxy A54', 'iPhone 13 mini', 'Moto G84', 'Xperia 10 V', 'Nokia G42']),
      say: [(_, value) => `I am using a ${value}, bought it about a year ago.`],
      change: [(_, value) => `By the way I replaced my phone, it is a ${value} now.`],
      echo: [(_, value) => `Thanks, on the ${value} the setting is under Network.`],
      ask: [() => 'What handset do I use?'],
    },
    {
      slot: 'case number',
      byAssistant: true,
      draw: (random) => `CS-${intIn(random, 100000, 999999)}`,
      say: [
        (_, value) =>
          `I have opened a case for this, your case number is ${value}. Please quote it if you contact us again.`,
      ],
      echo: [(_, value) => `As a reminder, your case is ${value}.`],
      ask: [() => 'What reference did support give me for my complaint?'],
    },
    {
      slot: 'card ending',
      draw: (random) => String(intIn(random, 1000, 9999)),
      say: [(_, value) => `The payment was on my card ending in ${value}.`],
      change: [(_, value) => `The bank sent me a new card, it ends in ${value}, please use that one.`],
      echo: [(_, value) => `I see the card ending ${value}.`],
      ask: [() => 'Which card should refunds go to?'],
    },
    {
      slot: 'callback time',
      draw: (random) => clock(random),
      say: [(_, value) => `If someone needs to call me back, any time after ${value} works, I am at work before that.`],
      change: [(_, value) => `Change of plan, call me after ${value} instead, my shift changed.`],
      echo: [(_, value) => `We will call you after ${value}.`],
      ask: [() => 'From what time can support phone me?'],
    },
    {
      slot: 'router serial',
      draw: (random) => `SN ${intIn(random, 1000, 9999)}-${letters(random, 2)}`,
      say: [(_, value) => `The serial on the bottom of the router says ${value}.`],
      echo: [(_, value) => `Thank you, router ${value} is registered to your line.`],
      ask: [() => 'What is the serial of my router?'],
    },
    {
      slot: 'refund amount',
      byAssistant: true,
      draw: (random) => money(intIn(random, 19, 480)),
      say: [
        (_, value) =>
          `I have issued a refund of ${value} to your original payment method; it takes 3 to 5 working days.`,
      ],
      echo: [(_, value) => `The refund of ${value} shows as processed on our side.`],
      ask: [() => 'How much money am I getting back?'],
    },
    {
      slot: 'delivery date',
      byAssistant: true,
      draw: (random) => dayOfYear(random),
      say: [(_, value) => `The replacement is on its way and should arrive by ${value}.`],
      change: [(_, value) => `I am sorry, the courier reports a delay: the new delivery date is ${value}.`],
      echo: [(_, value) => `Delivery is expected by ${value}.`],
      ask: [() => 'When will the replacement get to me?'],
    },
    {
      slot: 'previous agent',
      draw: (random) => pickOf(random, FIRST),
      say: [(_, value) => `Last time I spoke with someone called ${value}, who said it was all sorted.`],
      echo: [(_, value) => `I can see ${value}'s notes on your account.`],
      ask: [() => 'Who did I deal with on my earlier call?'],
    },
  ],
  tasks: [
    (random) => ({
      request: 'My internet keeps dropping every evening. What can I try?',
      answer: `Let us go through it step by step:\n1. Restart the router: unplug it for ${intIn(random, 20, 60)} seconds, then plug it back in and wait about ${intIn(random, 2, 4)} minutes.\n2. Check the lights: the internet light should be steady white, not orange.\n3. Move the router off the floor and away from the microwave; walls and metal cut the signal by up to ${intIn(random, 30, 60)}%.\n4. On the ${pickOf(random, ['2.4 GHz', '5 GHz'])} band, switch the channel to ${pickOf(random, [1, 6, 11, 36, 44])}.\n5. If it still drops, run a line test from the app; it takes about ${intIn(random, 5, 10)} minutes.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'How do roaming charges work if I travel in Europe for a couple of weeks?',
      answer: `Within the EU zone your allowance works as at home, up to a fair-use cap of ${intIn(random, 15, 40)}GB of data. Beyond it, data costs ${money(intIn(random, 1, 4))} per GB. Calls outside the zone are ${intIn(random, 50, 150)} cents a minute, and there is a daily pass for ${money(intIn(random, 3, 9))} that covers ${intIn(random, 1, 3)}GB. You get a text with the rates when you land.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'What do I need to do to return something?',
      answer: `Returns are simple:\n1. Open the order in the app and choose Return an item.\n2. Pick a reason; for damaged goods there is no fee.\n3. Print the label or show the QR code at any drop-off point (there are ${intIn(random, 3000, 6000)} of them).\n4. Refunds are issued within ${intIn(random, 3, 7)} working days of the item reaching our warehouse.\nItems can be returned within ${pickOf(random, [14, 30, 60])} days of delivery.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'How do I set up two-factor authentication on the account?',
      answer: `Here is how:\n1. Go to Settings, then Security.\n2. Choose Two-step verification and pick the app option (SMS works too).\n3. Scan the QR code with your authenticator app and enter the ${intIn(random, 6, 8)}-digit code.\n4. Save the ${intIn(random, 8, 12)} backup codes somewhere safe, offline.\nFrom then on, sign-ins on a new device ask for a code; a trusted device is remembered for ${intIn(random, 30, 90)} days.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'Why was I charged twice this month?',
      answer: `Looking at the statement, the second charge of ${money(intIn(random, 10, 60))} is a pending authorisation, not a payment: it was placed when the card was checked and drops off within ${intIn(random, 3, 7)} working days. The actual bill of ${money(intIn(random, 20, 90))} went out on the ${intIn(random, 1, 28)}th as usual. If the pending one is still there after a week, reply here and we will chase the bank.`,
      followUp: pickOf(random, ACKS),
    }),
  ],
};

const TRAVEL: DomainSpec = {
  openers: ['Hi!', 'Hello again.', 'Hey, trip planning time.', 'Morning!', 'Me again, more travel stuff.'],
  smallTalk: [
    'I cannot stop looking at photos of the place, I am so ready for a holiday.',
    'My suitcase wheel broke, of course right before a trip.',
    'I have been practising a few phrases of the language every night.',
  ],
  replies: [],
  tangents: [
    ...TANGENTS.slice(0, 5),
    [
      'How early should I get to the airport for an international flight?',
      'Generally about 3 hours before an international departure and 2 hours before a domestic one. Check-in desks often close 60 minutes before departure, and bag drop as early as 45 minutes before on some airlines.',
    ],
    [
      'Does jet lag get better faster if you fly east or west?',
      'Westward is usually easier: the body adapts to a longer day more readily. A rough rule is one day of adjustment per time zone crossed, so a 6-hour shift can take about 4 to 6 days going east.',
    ],
  ],
  facts: [
    {
      slot: 'flight',
      draw: (random) =>
        `${pickOf(random, ['LH', 'BA', 'KL', 'AF', 'IB', 'SK', 'TP', 'OS', 'AY'])} ${intIn(random, 100, 2999)}`,
      say: [
        (cast, value) => `Booked the flights! We are on ${value} to ${cast.destination}, early morning departure.`,
        (_, value) => `Our flight out is ${value}, I just got the confirmation email.`,
      ],
      change: [
        (_, value) => `The airline cancelled our flight and rebooked us on ${value}, same day at least.`,
        (_, value) => `We switched to ${value} because the earlier one had a 6-hour layover.`,
      ],
      echo: [(_, value) => `Flight ${value}, got it. I can help you plan the trip to the airport.`],
      ask: [(cast) => `Which plane are we taking to ${cast.destination}?`],
    },
    {
      slot: 'hotel',
      draw: (random) =>
        `Hotel ${pickOf(random, ['Miramar', 'Solana', 'Aurelia', 'Belvedere', 'Costa Azul', 'Meridiana', 'Palmyra'])}`,
      say: [
        (cast, value) =>
          `For ${cast.destination} we went with ${value}, it has a rooftop terrace and was not too pricey.`,
      ],
      change: [(_, value) => `We cancelled the first hotel, the reviews were awful. We are at ${value} now.`],
      echo: [(_, value) => `${value} sounds lovely.`],
      ask: [() => 'Where are we staying on the trip?'],
    },
    {
      slot: 'booking reference',
      draw: (random) => `${letters(random, 2)}${intIn(random, 2, 9)}${letters(random, 2)}${intIn(random, 2, 9)}`,
      say: [(_, value) => `The booking reference for the flights is ${value}, in case I lose the email.`],
      echo: [(_, value) => `Booking reference ${value}, saved.`],
      ask: [() => 'What is the confirmation code of our flight booking?'],
    },
    {
      slot: 'seat',
      draw: (random) => `${intIn(random, 4, 38)}${pickOf(random, ['A', 'C', 'D', 'F'])}`,
      say: [(_, value) => `Managed to get seat ${value}, an aisle, so my knees will survive.`],
      change: [(_, value) => `The seats got shuffled with the aircraft change, I am in ${value} now.`],
      echo: [(_, value) => `Seat ${value}, nice.`],
      ask: [() => 'Where am I sitting on the plane?'],
    },
    {
      slot: 'companion diet',
      draw: (random) => pickOf(random, ['coeliac', 'vegan', 'pescatarian', 'lactose intolerant', 'halal only']),
      say: [(cast, value) => `${cast.companion} is ${value}, so restaurants need to work for that too.`],
      echo: [(cast, value) => `I will keep in mind that ${cast.companion} is ${value} when I suggest places to eat.`],
      ask: [(cast) => `What does ${cast.companion} need when we pick restaurants?`],
    },
    {
      slot: 'train time',
      draw: (random) => clock(random),
      say: [
        (cast, value) =>
          `The train from the airport into ${cast.destination} leaves at ${value}, we have to hurry after landing.`,
      ],
      change: [(_, value) => `They changed the timetable, our train is at ${value} now.`],
      echo: [(_, value) => `The train at ${value}, noted.`],
      ask: [() => 'When does our train from the airport go?'],
    },
    {
      slot: 'companion',
      draw: (random) => person(random),
      say: [(_, value) => `Oh, my old friend ${value} is joining us for the second week, she lives nearby.`],
      echo: [(_, value) => `How nice that ${value} can join you.`],
      ask: [() => 'Which friend is coming along for part of the trip?'],
    },
    {
      slot: 'daily budget',
      draw: (random) => money(intIn(random, 6, 40) * 10),
      say: [(_, value) => `We said ${value} a day per person for food and activities, hotel not included.`],
      change: [(_, value) => `We redid the maths, the daily budget is ${value} each now.`],
      echo: [(_, value) => `A budget of ${value} a day each, I will plan with that.`],
      ask: [() => 'How much did we decide to spend per day?'],
    },
    {
      slot: 'passport expiry',
      draw: (random) => `${dayOfYear(random)}, ${intIn(random, 2026, 2033)}`,
      say: [(_, value) => `Checked my passport, it expires on ${value}, so that is fine for this trip.`],
      change: [(_, value) => `Got the new passport in the post, valid until ${value}.`],
      echo: [(_, value) => `Passport valid until ${value}, good.`],
      ask: [() => 'Until when is my passport valid?'],
    },
    {
      slot: 'check-in date',
      draw: (random) => dayOfYear(random),
      say: [(_, value) => `We check in on ${value}, late in the evening.`],
      change: [(_, value) => `We are moving the whole thing a bit, check-in is ${value} now.`],
      echo: [(_, value) => `Check-in on ${value}.`],
      ask: [() => 'On what date do we arrive at the hotel?'],
    },
    {
      slot: 'rental car',
      draw: (random) =>
        `${pickOf(random, ['Europcar', 'Sixt', 'Hertz', 'Avis'])} ${letters(random, 3)}${intIn(random, 100, 999)}`,
      say: [(_, value) => `Rental car is sorted, the voucher says ${value}, pickup at the airport desk.`],
      echo: [(_, value) => `Car voucher ${value}, noted.`],
      ask: [() => 'What is the voucher for the car we rented?'],
    },
    {
      slot: 'dinner reservation',
      draw: (random) => clock(random),
      say: [(_, value) => `I got us a table at that seafood place on the first night, ${value}.`],
      change: [(_, value) => `The restaurant moved our table to ${value}, they were overbooked.`],
      echo: [(_, value) => `Dinner at ${value} on the first night.`],
      ask: [() => 'What time is our table booked on the first evening?'],
    },
  ],
  tasks: [
    (random, cast) => ({
      request: `Can you sketch a 3-day itinerary for ${cast.destination}?`,
      answer: `Here is a relaxed plan:\n**Day 1**: the old town in the morning (about ${intIn(random, 2, 4)} km on foot), lunch at the market, a museum in the afternoon (entry around ${money(intIn(random, 8, 20))}).\n**Day 2**: a day trip by train, about ${intIn(random, 40, 90)} minutes each way; tickets from ${money(intIn(random, 12, 35))}.\n**Day 3**: the botanical garden, then the viewpoint at sunset, around ${intIn(random, 7, 9)} pm in summer.\nBook the museum a few days ahead at weekends.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'What should I pack for a two-week trip with only hand luggage?',
      answer: `A carry-on list for ${intIn(random, 12, 16)} days:\n- 5 tops, 2 trousers or skirts, 1 light jumper, 1 rain jacket\n- 7 pairs of socks and underwear (wash once midway)\n- 1 pair of walking shoes worn on the plane, sandals in the bag\n- Toiletries in containers of at most 100 ml, in one 1-litre clear bag\n- Adapter, charger, power bank (under ${pickOf(random, [100, 160])} Wh)\nMost airlines allow ${intIn(random, 7, 10)} kg; weigh the bag at home.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'How much cash should I bring, and is it better to exchange before I go?',
      answer: `Bring a little cash, around ${money(intIn(random, 50, 150))}, for taxis and small cafés, and pay by card elsewhere. Airport exchange counters often charge ${intIn(random, 8, 15)}% more than the rate; a card without foreign fees, or an ATM at the destination (watch for a fee of about ${money(intIn(random, 2, 6))}), is usually cheaper. Always pay in the local currency when the terminal asks.`,
      followUp: pickOf(random, ACKS),
    }),
    (random) => ({
      request: 'Any tips for a long-haul flight? I never sleep on planes.',
      answer: `A few things that help:\n1. Pick a window seat to lean on and control the blind.\n2. Shift your sleep by ${intIn(random, 1, 2)} hours over the ${intIn(random, 2, 4)} nights before.\n3. Skip alcohol and drink about 250 ml of water every hour.\n4. Eye mask, earplugs and a neck pillow; noise-cancelling headphones if you have them.\n5. Walk the aisle every ${intIn(random, 60, 120)} minutes.\nOn arrival, get daylight and stay up until at least ${intIn(random, 9, 10)} pm local time.`,
      followUp: pickOf(random, ACKS),
    }),
    (random, cast) => ({
      request: `What is the weather usually like in ${cast.destination} at that time of year?`,
      answer: `Expect daytime highs around ${intIn(random, 14, 29)}°C and lows near ${intIn(random, 5, 15)}°C, with about ${intIn(random, 4, 12)} rainy days in the month. Mornings can be foggy near the water. Layers and a light rain jacket are the safe bet; sunscreen too, the UV index often reaches ${intIn(random, 5, 9)} at midday.`,
      followUp: pickOf(random, ACKS),
    }),
  ],
};

const DOMAINS: Record<LongChatDomain, DomainSpec> = {
  personal: PERSONAL,
  work: WORK,
  support: SUPPORT,
  travel: TRAVEL,
};

// ---------------------------------------------------------------------------------------------
// The engine

/** One planned event of a fact: its first statement, a superseding statement, or a later restatement. */
interface FactEvent {
  fact: number;
  kind: 'state' | 'change' | 'recall';
}

/** Whether `text` holds `value` not inside a longer word or number (case-insensitive). */
export function holdsValue(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}]|[.,]\\d)`, 'iu').test(text);
}

/** The text of a generated message. */
export function messageText(message: ModelMessage): string {
  return typeof message.content === 'string' ? message.content : '';
}

/**
 * Generates a chat of style `domain` from `seed`: 11–15 dated sessions of 12–19 exchanges, with 11 or 12 facts
 * spread over them, about half of those that can change superseded in a later session. A fact is asked about
 * (graded) when its latest value appears nowhere else in the chat than where it is stated or restated; about one
 * in five is left unasked on purpose, as noise a real chat has.
 */
export function generateLongChat(domain: LongChatDomain, seed: number): LongChat {
  const spec = DOMAINS[domain];
  const random = seededRandom(seed * 7919 + LONG_CHAT_DOMAINS.indexOf(domain) * 104_729);
  const pick = <T>(items: readonly T[]): T => pickOf(random, items);
  const cast: Cast = {
    user: pick(FIRST),
    partner: pick(FIRST),
    child: pick(FIRST),
    friend: pick(FIRST),
    colleague: person(random),
    manager: pick(FIRST),
    pet: pick(PETS),
    client: pick(CLIENTS),
    product: pick(PRODUCTS),
    destination: pick(DESTINATIONS),
    companion: pick(FIRST),
  };
  const sessions = intIn(random, 11, 15);
  // Facts, each with its first session, and a later one when it is superseded or restated.
  const order = spec.facts.map((_, index) => index);
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other] ?? 0, order[index] ?? 0];
  }
  const chosen = order.slice(0, intIn(random, 11, 12)).map((index) => spec.facts[index]!);
  const used = new Set<string>();
  const draw = (fact: FactSpec): string => {
    for (let attempt = 0; attempt < 500; attempt += 1) {
      const value = fact.draw(random, cast);
      if (!used.has(value.toLowerCase())) {
        used.add(value.toLowerCase());
        return value;
      }
    }
    throw new Error(`long chats: no fresh value for ${fact.slot}`);
  };
  const facts: (LongChatFact & { spec: FactSpec })[] = chosen.map((fact) => ({
    slot: fact.slot,
    question: pick(fact.ask)(cast),
    values: [],
    latestIn: [],
    supersededIn: [],
    asked: random() < 0.8,
    spec: fact,
  }));
  const plan: FactEvent[][] = Array.from({ length: sessions }, () => []);
  facts.forEach((fact, index) => {
    const first = intIn(random, 0, sessions - 1);
    plan[first]?.push({ fact: index, kind: 'state' });
    if (first < sessions - 1 && fact.spec.change && random() < 0.35) {
      plan[intIn(random, first + 1, sessions - 1)]?.push({ fact: index, kind: 'change' });
    } else if (first < sessions - 1 && random() < 0.2) {
      plan[intIn(random, first + 1, sessions - 1)]?.push({ fact: index, kind: 'recall' });
    }
  });

  const messages: ModelMessage[] = [];
  const say = (user: string, assistant: string): [number, number] => {
    messages.push({ role: 'user', content: user }, { role: 'assistant', content: assistant });
    return [messages.length - 2, messages.length - 1];
  };
  // A value of small talk is drawn afresh too, so that it never equals a fact's value, before or after.
  const fresh = (make: () => string): string => {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const value = make();
      if (!used.has(value.toLowerCase())) {
        used.add(value.toLowerCase());
        return value;
      }
    }
    return make();
  };
  const smallTalk = (): string => {
    if (spec.ownRepliesOnly) {
      const detailed = random() < 0.5;
      return detailed
        ? `${pick(DETAILED_HAPPENINGS)(random, fresh)}.`.replace(/^./u, (first) => first.toUpperCase())
        : pick(spec.smallTalk);
    }
    return random() < 0.2 ? pick(spec.smallTalk) : smallTalkLine(random, fresh);
  };
  const reply = (): string =>
    spec.ownRepliesOnly || (spec.replies.length > 0 && random() < 0.15) ? pick(spec.replies) : replyLine(random);
  let day = Date.UTC(2023, intIn(random, 0, 11), intIn(random, 1, 28));
  const dateLine = (): string => {
    const date = new Date(day);
    const hour = intIn(random, 7, 22);
    return `[${WEEKDAYS[(date.getUTCDay() + 6) % 7]} ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${hour}:${pick(['05', '20', '35', '50'])}]`;
  };
  /** Marks the messages that state a fact's new value; the ones of its earlier value become superseded. */
  const stated = (fact: (typeof facts)[number], value: string, at: number[]): void => {
    if (fact.values.length > 0) fact.supersededIn.push(...fact.latestIn);
    fact.values.push(value);
    fact.latestIn = [...at];
  };
  // Tasks asked in the current session: a session does not ask for the same kind of thing twice.
  const askedTasks = new Set<number>();
  const nextTask = (): ReturnType<Task> => {
    const fresh = spec.tasks.map((_, index) => index).filter((index) => !askedTasks.has(index));
    const index = pick(fresh.length > 0 ? fresh : spec.tasks.map((_, at) => at));
    askedTasks.add(index);
    return spec.tasks[index]!(random, cast);
  };
  const factExchange = (event: FactEvent): void => {
    const fact = facts[event.fact]!;
    const factSpec = fact.spec;
    if (event.kind === 'recall') {
      const value = fact.values[fact.values.length - 1]!;
      const task = nextTask();
      const [, answer] = say(task.request, `${pick(factSpec.echo)(cast, value)} ${task.answer}`);
      fact.latestIn.push(answer);
      return;
    }
    const value = draw(factSpec);
    const line = pick(event.kind === 'change' ? (factSpec.change ?? factSpec.say) : factSpec.say)(cast, value);
    const echoed = random() < 0.45;
    if (factSpec.byAssistant) {
      const [, answer] = say(
        pick([`${smallTalk()} Any news on my issue?`, 'So what happens now?', 'Can you check where things stand?']),
        line,
      );
      stated(fact, value, [answer]);
      return;
    }
    // Said in passing: before or after some small talk, or while asking for something else.
    const style = random();
    const task = style < 0.3 ? nextTask() : undefined;
    const user =
      task !== undefined
        ? `${line} Anyway, ${task.request.charAt(0).toLowerCase()}${task.request.slice(1)}`
        : style < 0.65
          ? `${smallTalk()} ${line}`
          : `${line} ${smallTalk()}`;
    const response = task?.answer ?? reply();
    const [asked, answer] = say(user, echoed ? `${pick(factSpec.echo)(cast, value)} ${response}` : response);
    stated(fact, value, echoed ? [asked, answer] : [asked]);
  };

  for (let session = 0; session < sessions; session += 1) {
    const exchanges = intIn(random, 12, 19);
    const events = plan[session] ?? [];
    // Where each of the session's fact events goes, never the opening exchange.
    const slots = new Map<number, FactEvent[]>();
    for (const event of events) {
      const at = intIn(random, 1, exchanges - 1);
      slots.set(at, [...(slots.get(at) ?? []), event]);
    }
    askedTasks.clear();
    say(`${dateLine()} ${pick(spec.openers)} ${smallTalk()}`, reply());
    for (let exchange = 1; exchange < exchanges; exchange += 1) {
      for (const event of slots.get(exchange) ?? []) factExchange(event);
      const kind = random();
      if (kind < 0.45) say(smallTalk(), reply());
      else if (kind < 0.72) {
        const task = nextTask();
        say(task.request, task.answer);
        if (task.followUp && random() < 0.6) say(...task.followUp);
      } else if (kind < 0.82) say(...pick(spec.tangents));
      else say(`${smallTalk()} ${smallTalk()}`, reply());
    }
    day += intIn(random, 2, 16) * 86_400_000;
  }
  // The user's current message: a new session, whose later questions the compressed history must serve.
  messages.push({ role: 'user', content: `${dateLine()} ${pick(spec.openers)} ${smallTalk()}` });

  // A fact whose latest value also shows up somewhere it was not stated cannot be graded by its value: not asked.
  const texts = messages.map(messageText);
  const graded = facts.map(({ spec: _spec, ...fact }) => {
    const latest = fact.values[fact.values.length - 1] ?? '';
    const where = new Set(fact.latestIn);
    const clean = texts.every((text, at) => where.has(at) || !holdsValue(text, latest));
    return { ...fact, asked: fact.asked && clean && fact.latestIn.length > 0 };
  });
  return { domain, seed, messages, sessions, facts: graded };
}

/** Tuning and test seeds of the long chats; each seed makes one chat of every style. */
export const LONG_CHAT_SEEDS = { tune: [11, 12, 13, 14], test: [21, 22, 23, 24, 25, 26] } as const;
