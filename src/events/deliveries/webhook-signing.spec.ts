import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeader } from './webhook-signing';

describe('webhook signing', () => {
  const body = JSON.stringify({ id: 'evt', type: 'order.created', data: { object: {} } });

  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = newWebhookSecret();

    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('signs so that the standardwebhooks verifier accepts it', () => {
    const secret = newWebhookSecret();
    const now = new Date();
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatureHeader([secret], 'msg_1', now, body),
    };

    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('signs with every secret during a rotation, and each verifies alone', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const now = new Date();
    const signature = signatureHeader([current, previous], 'msg_2', now, body);
    const headers = {
      'webhook-id': 'msg_2',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    };

    expect(signature.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});
