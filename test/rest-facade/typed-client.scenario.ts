// The typed program typed-client.test.ts compiles with `tsc --strict` beside the DTOs a running service serves:
// what an integrator writes after "Add ServiceStack Reference". Kept as text because `./dtos.js` exists only
// once the service has generated it.
export const SCENARIO = `
import { type ErrorResponse, JsonServiceClient, type ResponseStatus } from '@servicestack/client';
import {
  ApproveBooking, type Booking, type Car, CreateCar, CreateWebhookSubscriptions, DeleteCar, GetCar, ListCar,
  MoneyInput, QueryBookings, QueryCars, RequestBooking, Transmission, UpdateCar, WebhookConfigInput,
  type WebhookSubscription,
} from './dtos.js';

export interface Connection {
  client: JsonServiceClient;
  statuses: number[];
  locations: string[];
}

export function connect(baseUrl: string, token: string): Connection {
  const client = new JsonServiceClient(baseUrl);
  client.bearerToken = token;
  const c: Connection = { client, statuses: [], locations: [] };
  client.responseFilter = (r: Response) => {
    c.statuses.push(r.status);
    const location = r.headers.get('Location');
    if (location) c.locations.push(location);
  };
  return c;
}

const newCar = (): CreateCar =>
  new CreateCar({
    Make: 'Ford',
    Model: 'Fiesta',
    Year: 2019,
    Color: 'Blue',
    Transmission: Transmission.Manual,
    Seats: 5,
    LicensePlate: { Jurisdiction: 'NZ', Number: 'TYPED1' },
    HomeLocation: { Address: '1 Queen St', Latitude: -36.85, Longitude: 174.76 },
    HourlyRate: new MoneyInput({ Amount: '9.90', Currency: 'NZD' }),
  });

export async function createCar(c: JsonServiceClient): Promise<Car> {
  const r = await c.post(newCar());
  return r.Car;
}

export async function getCar(c: JsonServiceClient, id: string): Promise<Car> {
  return (await c.get(new GetCar({ Id: id, Embed: 'none' }))).Car;
}

export async function updateCar(c: JsonServiceClient, id: string): Promise<Car> {
  return (await c.patch(new UpdateCar({ Id: id, Model: 'Focus', Color: null }))).Car;
}

export async function listCar(c: JsonServiceClient, id: string): Promise<Car> {
  return (await c.put(new ListCar({ Id: id }))).Car;
}

export async function searchCars(c: JsonServiceClient, ownerId: string): Promise<{ ids: string[]; total: number }> {
  const r = await c.get(new QueryCars({ OwnerId: ownerId, Sort: '-CreatedDateUtc', Limit: 10 }));
  return { ids: r.Cars.map((car: Car) => car.Id), total: r.Metadata.Total };
}

export async function getCarByReply(baseUrl: string, token: string, id: string): Promise<Car> {
  const client = new JsonServiceClient(baseUrl).useBasePath();
  client.bearerToken = token;
  return (await client.get(new GetCar({ Id: id }))).Car;
}

export function deleteCar(c: JsonServiceClient, id: string): Promise<void> {
  return c.delete(new DeleteCar({ Id: id }));
}

export async function requestBooking(c: JsonServiceClient, carId: string, start: string, end: string): Promise<Booking> {
  return (await c.post(new RequestBooking({ Id: carId, StartDateUtc: start, EndDateUtc: end }))).Booking;
}

export async function approveBooking(c: JsonServiceClient, id: string): Promise<Booking> {
  return (await c.put(new ApproveBooking({ Id: id }))).Booking;
}

export async function bookingStates(c: JsonServiceClient): Promise<string[]> {
  const api = await c.api(new QueryBookings({ Role: 'borrower' }));
  if (!api.succeeded || !api.response) throw new Error(api.error?.message ?? 'no response');
  return api.response.Bookings.map((b: Booking) => b.State);
}

export async function subscribe(c: JsonServiceClient): Promise<WebhookSubscription[]> {
  const r = await c.post(
    new CreateWebhookSubscriptions({
      Name: 'Typed',
      Events: ['carbooking_approve', 'carbooking_cancel'],
      Config: new WebhookConfigInput({ Url: 'https://127.0.0.1:9/hook' }),
    }),
  );
  return r.WebhookSubscriptions;
}

async function failure(p: Promise<unknown>): Promise<ResponseStatus> {
  try {
    await p;
  } catch (e) {
    const status = (e as ErrorResponse).responseStatus;
    if (status) return status;
    throw e;
  }
  throw new Error('expected a failure');
}

export function invalidCar(c: JsonServiceClient): Promise<ResponseStatus> {
  return failure(c.post(new CreateCar({ ...newCar(), Make: '' })));
}

export function missingCar(c: JsonServiceClient): Promise<ResponseStatus> {
  return failure(c.get(new GetCar({ Id: '00000000-0000-4000-8000-000000000000' })));
}
`;
