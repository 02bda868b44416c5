// The sample network `seed-demo` writes (CONTRACT §27): three owners with six cars around Amsterdam, one borrower,
// and the bookings, ratings and comments of a few weeks, stated as data so the seeding reads as a script.

export interface DemoPerson {
  username: string;
  firstName: string;
  lastName: string;
  phoneNumber: string;
}

export const owners = [
  {
    username: 'femke.devries@example.com',
    firstName: 'Femke',
    lastName: 'de Vries',
    phoneNumber: '+31612345601',
  },
  {
    username: 'joost.bakker@example.com',
    firstName: 'Joost',
    lastName: 'Bakker',
    phoneNumber: '+31612345602',
  },
  {
    username: 'sanne.visser@example.com',
    firstName: 'Sanne',
    lastName: 'Visser',
    phoneNumber: '+31612345603',
  },
] as const satisfies readonly DemoPerson[];

export const borrower = {
  username: 'noah.jansen@example.com',
  firstName: 'Noah',
  lastName: 'Jansen',
  phoneNumber: '+31612345604',
} as const satisfies DemoPerson;

/** Where the cars are: `near=52.3676,4.9041` (Amsterdam's centre) finds all of them within 10 km. */
export const city = { name: 'Amsterdam', latitude: 52.3676, longitude: 4.9041 } as const;

export interface DemoCar {
  owner: number;
  make: string;
  model: string;
  year: number;
  color: string;
  transmission: 'Automatic' | 'Manual';
  seats: number;
  plate: string;
  address: string;
  latitude: number;
  longitude: number;
  hourlyRate: string;
  autoApprove: boolean;
  description: string;
}

export const cars = [
  {
    owner: 0,
    make: 'Volkswagen',
    model: 'ID.3',
    year: 2022,
    color: 'Moonstone grey',
    transmission: 'Automatic',
    seats: 5,
    plate: 'N-482-KD',
    address: 'Prinsengracht 263, 1016 GV Amsterdam',
    latitude: 52.3752,
    longitude: 4.884,
    hourlyRate: '9.50',
    autoApprove: true,
    description: 'Electric, charging cable in the boot. Parked on the canal side.',
  },
  {
    owner: 0,
    make: 'Fiat',
    model: '500',
    year: 2019,
    color: 'Red',
    transmission: 'Manual',
    seats: 4,
    plate: 'XG-917-T',
    address: 'Westerstraat 120, 1015 MP Amsterdam',
    latitude: 52.3784,
    longitude: 4.8822,
    hourlyRate: '6.00',
    autoApprove: false,
    description: 'Small and easy to park in the Jordaan.',
  },
  {
    owner: 1,
    make: 'Toyota',
    model: 'Corolla Touring Sports',
    year: 2021,
    color: 'White',
    transmission: 'Automatic',
    seats: 5,
    plate: 'K-305-RZ',
    address: 'Javaplein 21, 1095 CJ Amsterdam',
    latitude: 52.3631,
    longitude: 4.9397,
    hourlyRate: '8.00',
    autoApprove: false,
    description: 'Hybrid estate with a roomy boot; child seat on request.',
  },
  {
    owner: 1,
    make: 'Renault',
    model: 'Zoe',
    year: 2020,
    color: 'Blue',
    transmission: 'Automatic',
    seats: 5,
    plate: 'H-771-PS',
    address: 'Czaar Peterstraat 10, 1018 PR Amsterdam',
    latitude: 52.3671,
    longitude: 4.9276,
    hourlyRate: '7.00',
    autoApprove: true,
    description: 'Electric, about 300 km on a full battery.',
  },
  {
    owner: 2,
    make: 'Volvo',
    model: 'XC40 Recharge',
    year: 2023,
    color: 'Black',
    transmission: 'Automatic',
    seats: 5,
    plate: 'R-208-LN',
    address: 'Van Woustraat 100, 1073 LN Amsterdam',
    latitude: 52.3531,
    longitude: 4.9008,
    hourlyRate: '12.50',
    autoApprove: false,
    description: 'Electric SUV with a tow bar.',
  },
  {
    owner: 2,
    make: 'Peugeot',
    model: '208',
    year: 2018,
    color: 'Silver',
    transmission: 'Manual',
    seats: 5,
    plate: '64-TZK-3',
    address: 'Overtoom 301, 1054 HW Amsterdam',
    latitude: 52.36,
    longitude: 4.868,
    hourlyRate: '6.50',
    autoApprove: false,
    description: 'Reliable petrol car for longer trips.',
  },
] as const satisfies readonly DemoCar[];

/** The car the printed next steps book: it approves requests itself, and nothing of the seed holds it ahead. */
export const carToBook = 0;

/** The client application the next steps use: a client-credentials app that may also sign users in. */
export const demoApplication = {
  name: 'Carshare demo',
  description: 'Made by seed-demo: its own token for searching cars, and user tokens through user-token.',
  grantTypes: ['client_credentials', 'authorization_code'],
  /** The address user-token expects the authorization server to send the browser back to (nothing serves it). */
  redirectUri: 'http://127.0.0.1:8765/callback',
  scopes: [
    'openid',
    'profile',
    'account:read',
    'cars:read',
    'bookings:read',
    'bookings:write',
    'feedback:read',
    'feedback:write',
  ],
} as const;
